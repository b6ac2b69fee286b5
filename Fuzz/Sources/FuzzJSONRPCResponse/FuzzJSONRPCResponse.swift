import FuzzSupport
import Parley
import ParleyJSONRPC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fuzzes how ``JSONRPCClient`` reads a peer's answer: parsing one response object or a batch array and matching
/// it to the calls by id. The first input byte picks the message (a call, or a batch of four or of three with a
/// notification; integer or string ids), the rest is the answer the channel hands back. Properties:
/// - no crash; a call that fails, fails with a `ParleyError` of a JSON-RPC kind (`jsonRPCError`,
///   `jsonRPCProtocol`, `decoding`); a batch throws only for an answer that is not JSON, and then as
///   `jsonRPCProtocol`;
/// - a call succeeds exactly when the answer, read as plain JSON, holds one valid answer to its id whose result has
///   the call's type, and then with that value; answers to no call are reported as unmatched, one each.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONRPCResponse(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    checkJSONRPCResponse(&input)
    return 0
}

func checkJSONRPCResponse(_ input: inout FuzzInput) {
    let mode = input.takeByte() % 4
    let reply = Data(input.bytes)
    let oracle = Oracle(reply: reply)
    Blocking.run {
        switch mode {
        case 0: await call(reply, oracle)
        case 1: await dynamicCall(reply, oracle)
        case 2: await batch(reply, oracle)
        default: await runtimeBatch(reply, oracle)
        }
    }
}

func call(_ reply: Data, _ oracle: Oracle) async {
    let rpc = JSONRPCClient(channel: ReplayChannel(reply: reply))
    let outcome: Result<Int, ParleyError>
    do { outcome = .success(try await rpc.call(IntMethod())) } catch { outcome = .failure(error) }
    oracle.check(outcome, id: 1, single: true, decode: Decode.int)
}

func dynamicCall(_ reply: Data, _ oracle: Oracle) async {
    let rpc = JSONRPCClient(channel: ReplayChannel(reply: reply), ids: LetterIDs())
    let outcome: Result<JSONValue, ParleyError>
    do { outcome = .success(try await rpc.call(JSONRPCDynamicMethod("any"))) } catch { outcome = .failure(error) }
    oracle.check(outcome, id: "a", single: true, decode: Decode.any)
}

func batch(_ reply: Data, _ oracle: Oracle) async {
    let rpc = JSONRPCClient(channel: ReplayChannel(reply: reply))
    do {
        let (int, text, item, any) = try await rpc.batch(IntMethod(), TextMethod(), ItemMethod(), JSONRPCDynamicMethod("any"))
        oracle.check(int, id: 1, decode: Decode.int)
        oracle.check(text, id: 2, decode: Decode.text)
        oracle.check(item, id: 3, decode: Decode.item)
        oracle.check(any, id: 4, decode: Decode.any)
    } catch {
        checkUnreadable(error, oracle)
    }
}

func runtimeBatch(_ reply: Data, _ oracle: Oracle) async {
    let rpc = JSONRPCClient(channel: ReplayChannel(reply: reply), ids: LetterIDs())
    var batch = JSONRPCBatch()
    let item = batch.call(ItemMethod())
    batch.notify(JSONRPCDynamicMethod("note"))
    let any = batch.call(JSONRPCDynamicMethod("any"))
    do {
        let results = try await rpc.send(batch)
        oracle.check(results[item], id: "a", decode: Decode.item)
        oracle.check(results[any], id: "b", decode: Decode.any)
        let strays = oracle.elements.filter { element in
            guard let id = Oracle.id(of: element) else { return true }
            return id != "a" && id != "b"
        }
        FuzzCheck.expect(
            results.unmatched.count == strays.count || oracle.isLax,
            "\(results.unmatched.count) unmatched answers reported, the reply has \(strays.count)"
        )
        for error in results.unmatched {
            FuzzCheck.expect([.jsonRPCError, .jsonRPCProtocol].contains(error.kind), "an unmatched answer of kind \(error.kind)")
            _ = error.description
        }
    } catch {
        checkUnreadable(error, oracle)
    }
}

/// A batch throws only when its answer is not JSON at all.
func checkUnreadable(_ error: ParleyError, _ oracle: Oracle) {
    FuzzCheck.expect(error.kind == .jsonRPCProtocol, "a batch threw \(error.kind): \(error.message)")
    FuzzCheck.expect(oracle.document == nil, "a batch threw although its answer is JSON: \(error.message)")
    _ = error.description
}

@_cdecl("FuzzJSONRPCResponse_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzJSONRPCResponse)
}

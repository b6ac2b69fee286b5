import FuzzSupport
import HTTPTypes
import Parley

/// Fuzzes header validation (`Headers.httpFields()`). The first input byte is a separator that cuts the rest into
/// pieces, taken as name, value, name, value, …; a second header list (the overrides) starts after an empty name.
/// Properties:
/// - no crash; the fields are accepted exactly when every name is an RFC 9110 token and every value is made of
///   visible characters, spaces and tabs (bytes 0x80 and up allowed), not starting or ending with a space or tab;
/// - accepted fields are kept as written, in order, none dropped, replaced or added;
/// - a refusal is ``ParleyError/Kind/invalidRequest`` naming the first offending field;
/// - `merging` replaces every field whose name (compared ignoring ASCII case) an override has, and keeps the rest.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    checkHeaders(&input)
    return 0
}

func isTokenCharacter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
        || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
}

func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.allSatisfy(isTokenCharacter)
}

func isValidValue(_ value: String) -> Bool {
    let bytes = Array(value.utf8)
    if let first = bytes.first, first == 0x20 || first == 0x09 { return false }
    if let last = bytes.last, last == 0x20 || last == 0x09 { return false }
    return bytes.allSatisfy { $0 == 0x09 || $0 == 0x20 || (0x21...0x7E).contains($0) || $0 >= 0x80 }
}

func lowercasedASCII(_ text: String) -> [UInt8] {
    text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
}

func checkHeaders(_ input: inout FuzzInput) {
    let separator = input.takeByte()
    let pieces = input.bytes.split(separator: separator, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    var headers = Headers()
    var overrides = Headers()
    var index = 0
    while index < pieces.count {
        let value = index + 1 < pieces.count ? pieces[index + 1] : ""
        if pieces[index].isEmpty, overrides.isEmpty, !headers.isEmpty {
            overrides.append(value, index + 2 < pieces.count ? pieces[index + 2] : "")
            index += 3
            continue
        }
        if overrides.isEmpty { headers.append(pieces[index], value) } else { overrides.append(pieces[index], value) }
        index += 2
    }
    checkValidation(headers)
    checkValidation(overrides)
    checkMerging(headers, overrides)
}

func checkValidation(_ headers: Headers) {
    let firstInvalid = headers.fields.first { !isValidName($0.name) || !isValidValue($0.value) }
    do {
        let fields = try headers.httpFields()
        FuzzCheck.expect(firstInvalid == nil, "accepted the illegal field \(String(reflecting: firstInvalid))")
        FuzzCheck.expect(fields.count == headers.fields.count, "\(headers.fields.count) fields became \(fields.count)")
        for (field, original) in zip(fields, headers.fields) {
            FuzzCheck.expect(field.name.rawName == original.name, "name \(original.name) became \(field.name.rawName)")
            FuzzCheck.expect(field.value == original.value, "value \(String(reflecting: original.value)) became \(String(reflecting: field.value))")
            FuzzCheck.expect(!field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "CR, LF or NUL in an accepted value")
        }
        FuzzCheck.expect(Headers(fields).fields == headers.fields, "Headers(HTTPFields) does not give the fields back")
    } catch {
        FuzzCheck.expect(error.kind == .invalidRequest, "refused with \(error.kind): \(error.message)")
        guard let firstInvalid else { FuzzCheck.fail("refused valid fields: \(error.message)") }
        // Messages quote and escape what is not printable (control characters, quotes, bidi overrides, invalid
        // UTF-8) their own way, so an illegal name is recognised by its runs of ASCII letters and digits.
        let printableRuns = firstInvalid.name.unicodeScalars
            .split { !(("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)) }
            .map { String(String.UnicodeScalarView($0)) }
        FuzzCheck.expect(
            // Compared as bytes: a run followed by a combining mark is not a whole grapheme of the message.
            printableRuns.allSatisfy { Array(error.message.utf8).firstRange(of: Array($0.utf8)) != nil },
            "the refusal does not name the field \(String(reflecting: firstInvalid.name)): \(error.message)"
        )
        _ = error.description
    }
}

func checkMerging(_ headers: Headers, _ overrides: Headers) {
    let merged = headers.merging(overrides)
    let overridden = Set(overrides.fields.map { lowercasedASCII($0.name) })
    let kept = headers.fields.filter { !overridden.contains(lowercasedASCII($0.name)) }
    FuzzCheck.expect(merged.fields == kept + overrides.fields, "merging gave \(merged.fields), expected \(kept + overrides.fields)")
    for field in merged.fields {
        let first = merged.fields.first { lowercasedASCII($0.name) == lowercasedASCII(field.name) }
        FuzzCheck.expect(merged[field.name] == first?.value, "subscript \(field.name) is not the first such field")
        FuzzCheck.expect(merged.contains(field.name), "contains(\(field.name)) is false")
    }
}

@_cdecl("FuzzHeaders_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzHeaders)
}

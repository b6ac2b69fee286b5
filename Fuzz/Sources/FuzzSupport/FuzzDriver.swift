import CLibFuzzer

/// Starts libFuzzer with the process's arguments and a target's `LLVMFuzzerTestOneInput`.
public enum FuzzDriver {
    /// The signature of `LLVMFuzzerTestOneInput`.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer (fuzzing, or replaying the files named on the command line) and returns its exit code.
    public static func run(
        _ argc: CInt,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ test: TestOneInput
    ) -> CInt {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, test)
    }
}

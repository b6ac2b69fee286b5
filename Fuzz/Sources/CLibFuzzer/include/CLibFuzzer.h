#ifndef PARLEY_CLIBFUZZER_H
#define PARLEY_CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (LLVM 11 and later), called from the executable's own `main`: SwiftPM links every
/// executable with `main` renamed to `<Module>_main`, so libFuzzer's `main` cannot be the entry point.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif

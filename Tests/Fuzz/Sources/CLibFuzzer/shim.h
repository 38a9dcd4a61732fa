#ifndef TABULA_CLIBFUZZER_SHIM_H
#define TABULA_CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer). SwiftPM aliases an
// executable's `main` to the module's own entry point, so libFuzzer's `main` never runs;
// each fuzz target's `@main` hands its command line to this driver instead.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif

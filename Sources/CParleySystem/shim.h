#ifndef PARLEY_SYSTEM_SHIM_H
#define PARLEY_SYSTEM_SHIM_H
// zlib, for response decompression, and the file-status calls Parley makes. `struct stat` is read here in C: in
// Swift its fields belong to whichever Clang module first included <sys/stat.h> textually, and a release build
// with MemberImportVisibility then refuses `st_mode` unless that module (CoreFoundation on Linux) is imported.
#include <zlib.h>
#include <stdint.h>
#include <sys/stat.h>

/// What Parley needs of a file's status.
typedef struct {
    int64_t size;
    int isRegular;
    int isDirectory;
} parley_file_status;

/// `fstat` on `descriptor`; 0 on success, -1 with errno set otherwise.
static inline int parley_fstatus(int descriptor, parley_file_status *status) {
    struct stat info;
    if (fstat(descriptor, &info) != 0) return -1;
    status->size = (int64_t)info.st_size;
    status->isRegular = S_ISREG(info.st_mode);
    status->isDirectory = S_ISDIR(info.st_mode);
    return 0;
}

/// `stat` on `path`; 0 on success, -1 with errno set otherwise.
static inline int parley_status(const char *path, parley_file_status *status) {
    struct stat info;
    if (stat(path, &info) != 0) return -1;
    status->size = (int64_t)info.st_size;
    status->isRegular = S_ISREG(info.st_mode);
    status->isDirectory = S_ISDIR(info.st_mode);
    return 0;
}
#endif

#ifndef PARLEY_SYSTEM_SHIM_H
#define PARLEY_SYSTEM_SHIM_H
// zlib, for response decompression, and the file-status calls Parley makes. `struct stat` is read here in C: in
// Swift its fields belong to whichever Clang module first included <sys/stat.h> textually, and a release build
// with MemberImportVisibility then refuses `st_mode` unless that module (CoreFoundation on Linux) is imported.
#include <zlib.h>
#include <stdint.h>
#include <sys/stat.h>
#include <spawn.h>
#include <errno.h>

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

/// `posix_spawn_file_actions_addchdir_np` where the C library has it (glibc 2.29, macOS 10.15); ENOSYS otherwise.
static inline int parley_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
#if defined(__APPLE__) || (defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29)))
    return posix_spawn_file_actions_addchdir_np(actions, path);
#else
    (void)actions;
    (void)path;
    return ENOSYS;
#endif
}

/// `posix_spawn_file_actions_addclosefrom_np` where the C library has it (glibc 2.34): the child closes every
/// descriptor from `from` on, so that it holds no pipe of ours (a pipe a child holds never reports its end). ENOSYS
/// otherwise (on Apple's systems `POSIX_SPAWN_CLOEXEC_DEFAULT` does this).
static inline int parley_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions;
    (void)from;
    return ENOSYS;
#endif
}
#endif

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
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

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

/// The child closes every descriptor from `from` on, so that it holds no pipe of ours (a pipe a child holds never
/// reports its end): `posix_spawn_file_actions_addclosefrom_np` where the C library has it (glibc 2.34), else a close
/// action for each descriptor listed in /proc/self/fd (each name read through its pointer: nothing copied past the
/// entry's end). On Apple's systems `POSIX_SPAWN_CLOEXEC_DEFAULT` does this instead; 0 there.
static inline int parley_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#elif defined(__linux__)
    DIR *folder = opendir("/proc/self/fd");
    if (folder == NULL) return errno;
    int own = dirfd(folder);
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] < '0' || name[0] > '9') continue;
        long descriptor = strtol(name, NULL, 10);
        if (descriptor >= from && descriptor != own) posix_spawn_file_actions_addclose(actions, (int)descriptor);
    }
    closedir(folder);
    return 0;
#else
    (void)actions;
    (void)from;
    return 0;
#endif
}

/// A pipe whose two ends are closed on exec from the start (`pipe2` with `O_CLOEXEC` on Linux): no child spawned by
/// another thread at that moment inherits it. 0, or -1 with errno set.
#if defined(__linux__)
extern int pipe2(int descriptors[2], int flags);
#endif
static inline int parley_pipe_cloexec(int descriptors[2]) {
#if defined(__linux__)
    return pipe2(descriptors, O_CLOEXEC);
#else
    if (pipe(descriptors) != 0) return -1;
    fcntl(descriptors[0], F_SETFD, FD_CLOEXEC);
    fcntl(descriptors[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

/// On Apple's systems, where `POSIX_SPAWN_CLOEXEC_DEFAULT` closes every descriptor not named, keeps `descriptor` open
/// in the child as it is; nothing elsewhere.
static inline int parley_spawn_addinherit(posix_spawn_file_actions_t *actions, int descriptor) {
#if defined(__APPLE__)
    return posix_spawn_file_actions_addinherit_np(actions, descriptor);
#else
    (void)actions;
    (void)descriptor;
    return 0;
#endif
}
#endif

/* library_start: the start-up cost of a ROCm library under `hipscope exec`, which is mostly the
 * registration of its device code. Loads LIBRARY with dlopen (its constructors register its
 * fat binaries), then calls CREATE(&handle) (rocblas_create_handle, rocsparse_create_handle,
 * ...), the library's first HIP calls, at which the runtime checks every registered fat binary
 * for a code object for the GPU. Prints the two times; the caller measures memory.
 *
 * Usage: library_start LIBRARY CREATE      (built and run by scripts/rocm-suites.sh) */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: library_start LIBRARY CREATE\n");
        return 2;
    }
    double t0 = seconds();
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "library_start: %s\n", dlerror());
        return 2;
    }
    double t1 = seconds();
    int (*create)(void **) = (int (*)(void **))dlsym(lib, argv[2]);
    if (!create) {
        fprintf(stderr, "library_start: %s\n", dlerror());
        return 2;
    }
    void *handle = NULL;
    int status = create(&handle);
    double t2 = seconds();
    printf("library_start\t%s\t%.3f\t%s\t%.3f\t%d\n", argv[1], t1 - t0, argv[2], t2 - t1, status);
    return status == 0 ? 0 : 1;
}

/* hip_stubs.c -- stand-ins for the HIP runtime entry points that clang's HIP host code
 * references, so bin/host/vadd_host links without a HIP runtime. Nothing runs on a GPU:
 * the stubs only record what the generated host code asked for, and main() checks that
 * the registration constructor ran and the launch reached hipLaunchKernel with the
 * registered kernel handle and the expected configuration. Exit status 0 = all seen.
 * Signatures follow the declarations clang's generated code calls (pointer-sized args). */
#include <stddef.h>

struct dim3 { unsigned x, y, z; };

static const void *g_fatbin_wrapper;   /* { u32 magic "HIPF", u32 version, fatbin ptr, 0 } */
static const void *g_kernel_handle;
static int g_registered_functions;
static int g_launches;
static struct dim3 g_grid, g_block;
static size_t g_shmem;
static void *g_stream;

void **__hipRegisterFatBinary(const void *wrapper) {
  g_fatbin_wrapper = wrapper;
  return (void **)&g_fatbin_wrapper;
}

void __hipRegisterFunction(void **module, const void *host_function, char *device_function,
                           const char *device_name, int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *warp_size) {
  (void)module; (void)device_function; (void)device_name; (void)thread_limit; (void)tid;
  (void)bid; (void)block_dim; (void)grid_dim; (void)warp_size;
  g_kernel_handle = host_function;
  g_registered_functions++;
}

void __hipUnregisterFatBinary(void **module) { (void)module; }

int __hipPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shmem, void *stream) {
  g_grid = grid; g_block = block; g_shmem = shmem; g_stream = stream;
  return 0;
}

int __hipPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shmem, void **stream) {
  *grid = g_grid; *block = g_block; *shmem = g_shmem; *stream = g_stream;
  return 0;
}

int hipLaunchKernel(const void *function, struct dim3 grid, struct dim3 block, void **args,
                    size_t shmem, void *stream) {
  (void)shmem; (void)stream;
  if (function == g_kernel_handle && args && grid.x == 4 && block.x == 256)
    g_launches++;
  return 0;
}

int vadd_launch(const float *a, const float *b, float *c, unsigned n);

int main(void) {
  static float a[1000], b[1000], c[1000];
  vadd_launch(a, b, c, 1000);
  const unsigned *w = (const unsigned *)g_fatbin_wrapper;
  int ok = w && w[0] == 0x48495046u && g_registered_functions == 1 && g_launches == 1;
  return ok ? 0 : 1;
}

// rocsparse_spmv.cpp -- rocSPARSE's precompiled kernels on the simulated GPU: csrmv (general,
// and adaptive after rocsparse_?csrmv_analysis) in single and double precision, and doti,
// each checked against a CPU reference. Values are small integers and halves, so every sum
// is exact in float and double: the device result must equal the reference bit for bit.
//   usage: rocsparse_spmv [rows [cols]]   (default 2000 x 1500)
#include <hip/hip_runtime.h>
#include <rocsparse/rocsparse.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../hip/hip_check.h"

#define SPARSE_CHECK(call)                                                                \
  do {                                                                                    \
    rocsparse_status st_ = (call);                                                        \
    if (st_ != rocsparse_status_success) FAIL("%s returned rocsparse status %d", #call, (int)st_); \
  } while (0)

// A deterministic sparse matrix with rows of 0 to 60 entries (some long rows, so the adaptive
// kernel splits them) and small integer values.
struct Csr {
  int m, n;
  std::vector<int> ptr, col;
  std::vector<double> val;
};

static Csr make_matrix(int m, int n) {
  Csr a{m, n, {0}, {}, {}};
  unsigned s = 12345;
  auto next = [&] { s = s * 1103515245u + 12345u; return (s >> 8) & 0xffff; };
  for (int r = 0; r < m; ++r) {
    int len = (r % 97 == 0) ? 60 : (int)(next() % 9);
    int c = (int)(next() % 7);
    for (int k = 0; k < len && c < n; ++k) {
      a.col.push_back(c);
      a.val.push_back((double)((int)(next() % 9) - 4) * 0.5);
      c += 1 + (int)(next() % 23);
    }
    a.ptr.push_back((int)a.col.size());
  }
  return a;
}

template <typename T>
static void spmv_ref(const Csr& a, T alpha, const std::vector<T>& x, T beta, std::vector<T>& y) {
  for (int r = 0; r < a.m; ++r) {
    T sum = 0;
    for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k) sum += (T)a.val[k] * x[a.col[k]];
    y[r] = alpha * sum + beta * y[r];
  }
}

template <typename T>
static T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  HIP_CHECK(hipMalloc(&d, v.size() * sizeof(T) + 1));
  HIP_CHECK(hipMemcpy(d, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

static rocsparse_status csrmv(rocsparse_handle h, const Csr& a, const float* alpha, rocsparse_mat_descr d, const float* val, const int* ptr,
                              const int* col, rocsparse_mat_info info, const float* x, const float* beta, float* y) {
  return rocsparse_scsrmv(h, rocsparse_operation_none, a.m, a.n, (int)a.col.size(), alpha, d, val, ptr, col, info, x, beta, y);
}
static rocsparse_status csrmv(rocsparse_handle h, const Csr& a, const double* alpha, rocsparse_mat_descr d, const double* val, const int* ptr,
                              const int* col, rocsparse_mat_info info, const double* x, const double* beta, double* y) {
  return rocsparse_dcsrmv(h, rocsparse_operation_none, a.m, a.n, (int)a.col.size(), alpha, d, val, ptr, col, info, x, beta, y);
}
static rocsparse_status analyse(rocsparse_handle h, const Csr& a, rocsparse_mat_descr d, const float* val, const int* ptr, const int* col,
                                rocsparse_mat_info info) {
  return rocsparse_scsrmv_analysis(h, rocsparse_operation_none, a.m, a.n, (int)a.col.size(), d, val, ptr, col, info);
}
static rocsparse_status analyse(rocsparse_handle h, const Csr& a, rocsparse_mat_descr d, const double* val, const int* ptr, const int* col,
                                rocsparse_mat_info info) {
  return rocsparse_dcsrmv_analysis(h, rocsparse_operation_none, a.m, a.n, (int)a.col.size(), d, val, ptr, col, info);
}

// y = alpha A x + beta y, without (general kernel) and with (adaptive kernel) analysis.
template <typename T>
static void check_csrmv(rocsparse_handle h, const Csr& a, bool adaptive, const char* what) {
  std::vector<T> val(a.val.begin(), a.val.end()), x(a.n), y(a.m), ref;
  for (int i = 0; i < a.n; ++i) x[i] = (T)((i % 5) - 2);
  for (int i = 0; i < a.m; ++i) y[i] = (T)(i % 3);
  ref = y;
  T alpha = 2, beta = -1;
  spmv_ref(a, alpha, x, beta, ref);
  rocsparse_mat_descr descr;
  rocsparse_mat_info info = nullptr;
  SPARSE_CHECK(rocsparse_create_mat_descr(&descr));
  T* dval = to_device(val);
  int* dptr = to_device(a.ptr);
  int* dcol = to_device(a.col);
  T* dx = to_device(x);
  T* dy = to_device(y);
  if (adaptive) {
    SPARSE_CHECK(rocsparse_create_mat_info(&info));
    SPARSE_CHECK(analyse(h, a, descr, dval, dptr, dcol, info));
  }
  SPARSE_CHECK(csrmv(h, a, &alpha, descr, dval, dptr, dcol, info, dx, &beta, dy));
  HIP_CHECK(hipMemcpy(y.data(), dy, y.size() * sizeof(T), hipMemcpyDeviceToHost));
  for (int r = 0; r < a.m; ++r)
    if (y[r] != ref[r]) FAIL("%s: y[%d] = %g, CPU reference %g", what, r, (double)y[r], (double)ref[r]);
  printf("%s: %d rows, %zu nonzeros: ok\n", what, a.m, a.col.size());
  if (info) SPARSE_CHECK(rocsparse_destroy_mat_info(info));
  SPARSE_CHECK(rocsparse_destroy_mat_descr(descr));
  for (void* p : {(void*)dval, (void*)dptr, (void*)dcol, (void*)dx, (void*)dy}) HIP_CHECK(hipFree(p));
}

// result = sum x_val[i] * y[x_ind[i]].
static void check_doti(rocsparse_handle h, int n) {
  std::vector<float> y(n), xval;
  std::vector<int> xind;
  for (int i = 0; i < n; ++i) y[i] = (float)((i % 7) - 3);
  for (int i = 0; i < n; i += 3) {
    xind.push_back(i);
    xval.push_back((float)((i % 5) - 2) * 0.5f);
  }
  double ref = 0;
  for (size_t k = 0; k < xind.size(); ++k) ref += (double)xval[k] * y[xind[k]];
  float* dval = to_device(xval);
  int* dind = to_device(xind);
  float* dy = to_device(y);
  float result = 12345;
  SPARSE_CHECK(rocsparse_set_pointer_mode(h, rocsparse_pointer_mode_host));
  SPARSE_CHECK(rocsparse_sdoti(h, (int)xind.size(), dval, dind, dy, &result, rocsparse_index_base_zero));
  if ((double)result != ref) FAIL("sdoti: %g, CPU reference %g", (double)result, ref);
  printf("sdoti: %zu nonzeros: ok\n", xind.size());
  for (void* p : {(void*)dval, (void*)dind, (void*)dy}) HIP_CHECK(hipFree(p));
}

int main(int argc, char** argv) {
  int m = argc > 1 ? atoi(argv[1]) : 2000;
  int n = argc > 2 ? atoi(argv[2]) : 1500;
  Csr a = make_matrix(m, n);
  rocsparse_handle h;
  SPARSE_CHECK(rocsparse_create_handle(&h));
  check_csrmv<float>(h, a, false, "scsrmv");
  check_csrmv<double>(h, a, false, "dcsrmv");
  check_csrmv<float>(h, a, true, "scsrmv adaptive");
  check_csrmv<double>(h, a, true, "dcsrmv adaptive");
  check_doti(h, n);
  SPARSE_CHECK(rocsparse_destroy_handle(h));
  printf("PASS\n");
  return 0;
}

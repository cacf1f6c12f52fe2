// hipsparse_spmv.cpp -- hipSPARSE (which forwards to rocSPARSE's precompiled kernels) on the
// simulated GPU: the legacy hipsparse?csrmv in single and double precision, and the generic
// hipsparseSpMV on a CSR matrix with each CSR algorithm (default, CSR_ALG1 = rocSPARSE's
// adaptive kernel, CSR_ALG2 = its stream kernel), on the transposed CSR matrix, and on the
// same matrix in COO format; each y = alpha op(A) x + beta y is checked against a CPU
// reference. Values are small integers and halves, so every sum is exact in float and double
// whatever the order of additions: the device result must equal the reference bit for bit.
//   usage: hipsparse_spmv [rows [cols]]   (default 2000 x 1500)
#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../hip/hip_check.h"

#define SPARSE_CHECK(call)                                                                 \
  do {                                                                                     \
    hipsparseStatus_t st_ = (call);                                                        \
    if (st_ != HIPSPARSE_STATUS_SUCCESS) FAIL("%s returned hipsparse status %d", #call, (int)st_); \
  } while (0)

// A deterministic sparse matrix with rows of 0 to 60 entries (some long rows, so the adaptive
// kernel splits them) and small integer values (the matrix of rocsparse_spmv.cpp).
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

// y = alpha op(A) x + beta y, op(A) = A or A^T.
template <typename T>
static void spmv_ref(const Csr& a, bool trans, T alpha, const std::vector<T>& x, T beta, std::vector<T>& y) {
  std::vector<T> ax(trans ? a.n : a.m, 0);
  for (int r = 0; r < a.m; ++r)
    for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k) {
      if (trans) ax[a.col[k]] += (T)a.val[k] * x[r];
      else ax[r] += (T)a.val[k] * x[a.col[k]];
    }
  for (size_t i = 0; i < y.size(); ++i) y[i] = alpha * ax[i] + beta * y[i];
}

template <typename T>
static T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  HIP_CHECK(hipMalloc(&d, v.size() * sizeof(T) + 1));
  HIP_CHECK(hipMemcpy(d, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

template <typename T>
static void inputs(const Csr& a, bool trans, std::vector<T>& x, std::vector<T>& y) {
  x.resize(trans ? a.m : a.n);
  y.resize(trans ? a.n : a.m);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (T)((int)(i % 5) - 2);
  for (size_t i = 0; i < y.size(); ++i) y[i] = (T)(i % 3);
}

template <typename T>
static void compare(const char* what, const Csr& a, const std::vector<T>& y, const std::vector<T>& ref) {
  for (size_t r = 0; r < ref.size(); ++r)
    if (y[r] != ref[r]) FAIL("%s: y[%zu] = %g, CPU reference %g", what, r, (double)y[r], (double)ref[r]);
  printf("%s: %d x %d, %zu nonzeros: ok\n", what, a.m, a.n, a.col.size());
}

static hipsparseStatus_t csrmv(hipsparseHandle_t h, const Csr& a, const float* alpha, hipsparseMatDescr_t d, const float* val,
                               const int* ptr, const int* col, const float* x, const float* beta, float* y) {
  return hipsparseScsrmv(h, HIPSPARSE_OPERATION_NON_TRANSPOSE, a.m, a.n, (int)a.col.size(), alpha, d, val, ptr, col, x, beta, y);
}
static hipsparseStatus_t csrmv(hipsparseHandle_t h, const Csr& a, const double* alpha, hipsparseMatDescr_t d, const double* val,
                               const int* ptr, const int* col, const double* x, const double* beta, double* y) {
  return hipsparseDcsrmv(h, HIPSPARSE_OPERATION_NON_TRANSPOSE, a.m, a.n, (int)a.col.size(), alpha, d, val, ptr, col, x, beta, y);
}

// The legacy API: hipsparse?csrmv.
template <typename T>
static void check_csrmv(hipsparseHandle_t h, const Csr& a, const char* what) {
  std::vector<T> val(a.val.begin(), a.val.end()), x, y;
  inputs(a, false, x, y);
  std::vector<T> ref = y;
  T alpha = 2, beta = -1;
  spmv_ref(a, false, alpha, x, beta, ref);
  hipsparseMatDescr_t descr;
  SPARSE_CHECK(hipsparseCreateMatDescr(&descr));
  T* dval = to_device(val);
  int* dptr = to_device(a.ptr);
  int* dcol = to_device(a.col);
  T* dx = to_device(x);
  T* dy = to_device(y);
  SPARSE_CHECK(csrmv(h, a, &alpha, descr, dval, dptr, dcol, dx, &beta, dy));
  HIP_CHECK(hipMemcpy(y.data(), dy, y.size() * sizeof(T), hipMemcpyDeviceToHost));
  compare(what, a, y, ref);
  SPARSE_CHECK(hipsparseDestroyMatDescr(descr));
  for (void* p : {(void*)dval, (void*)dptr, (void*)dcol, (void*)dx, (void*)dy}) HIP_CHECK(hipFree(p));
}

template <typename T> constexpr hipDataType data_type();
template <> constexpr hipDataType data_type<float>() { return HIP_R_32F; }
template <> constexpr hipDataType data_type<double>() { return HIP_R_64F; }

// The generic API: hipsparseSpMV on a CSR or COO descriptor (bufferSize, preprocess, SpMV).
template <typename T>
static void check_spmv(hipsparseHandle_t h, const Csr& a, bool coo, bool trans, hipsparseSpMVAlg_t alg, const char* what) {
  std::vector<T> val(a.val.begin(), a.val.end()), x, y;
  inputs(a, trans, x, y);
  std::vector<T> ref = y;
  T alpha = 2, beta = -1;
  spmv_ref(a, trans, alpha, x, beta, ref);
  std::vector<int> rows;  // COO row indices
  for (int r = 0; r < a.m; ++r)
    for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k) rows.push_back(r);
  const hipDataType type = data_type<T>();
  T* dval = to_device(val);
  int* dptr = to_device(coo ? rows : a.ptr);
  int* dcol = to_device(a.col);
  T* dx = to_device(x);
  T* dy = to_device(y);
  hipsparseSpMatDescr_t A;
  if (coo)
    SPARSE_CHECK(hipsparseCreateCoo(&A, a.m, a.n, (int64_t)a.col.size(), dptr, dcol, dval, HIPSPARSE_INDEX_32I,
                                    HIPSPARSE_INDEX_BASE_ZERO, type));
  else
    SPARSE_CHECK(hipsparseCreateCsr(&A, a.m, a.n, (int64_t)a.col.size(), dptr, dcol, dval, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_32I,
                                    HIPSPARSE_INDEX_BASE_ZERO, type));
  hipsparseDnVecDescr_t X, Y;
  SPARSE_CHECK(hipsparseCreateDnVec(&X, (int64_t)x.size(), dx, type));
  SPARSE_CHECK(hipsparseCreateDnVec(&Y, (int64_t)y.size(), dy, type));
  const hipsparseOperation_t op = trans ? HIPSPARSE_OPERATION_TRANSPOSE : HIPSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bytes = 0;
  SPARSE_CHECK(hipsparseSpMV_bufferSize(h, op, &alpha, A, X, &beta, Y, type, alg, &bytes));
  void* buffer = nullptr;
  HIP_CHECK(hipMalloc(&buffer, bytes + 1));
  SPARSE_CHECK(hipsparseSpMV_preprocess(h, op, &alpha, A, X, &beta, Y, type, alg, buffer));
  SPARSE_CHECK(hipsparseSpMV(h, op, &alpha, A, X, &beta, Y, type, alg, buffer));
  HIP_CHECK(hipMemcpy(y.data(), dy, y.size() * sizeof(T), hipMemcpyDeviceToHost));
  compare(what, a, y, ref);
  SPARSE_CHECK(hipsparseDestroyDnVec(X));
  SPARSE_CHECK(hipsparseDestroyDnVec(Y));
  SPARSE_CHECK(hipsparseDestroySpMat(A));
  for (void* p : {(void*)dval, (void*)dptr, (void*)dcol, (void*)dx, (void*)dy, buffer}) HIP_CHECK(hipFree(p));
}

int main(int argc, char** argv) {
  int m = argc > 1 ? atoi(argv[1]) : 2000;
  int n = argc > 2 ? atoi(argv[2]) : 1500;
  Csr a = make_matrix(m, n);
  hipsparseHandle_t h;
  SPARSE_CHECK(hipsparseCreate(&h));
  check_csrmv<float>(h, a, "hipsparseScsrmv");
  check_csrmv<double>(h, a, "hipsparseDcsrmv");
  check_spmv<float>(h, a, false, false, HIPSPARSE_SPMV_ALG_DEFAULT, "hipsparseSpMV CSR float, SPMV_ALG_DEFAULT");
  check_spmv<float>(h, a, false, false, HIPSPARSE_SPMV_CSR_ALG1, "hipsparseSpMV CSR float, SPMV_CSR_ALG1 (adaptive)");
  check_spmv<float>(h, a, false, false, HIPSPARSE_SPMV_CSR_ALG2, "hipsparseSpMV CSR float, SPMV_CSR_ALG2 (stream)");
  check_spmv<double>(h, a, false, false, HIPSPARSE_SPMV_CSR_ALG1, "hipsparseSpMV CSR double, SPMV_CSR_ALG1 (adaptive)");
  check_spmv<double>(h, a, false, false, HIPSPARSE_SPMV_CSR_ALG2, "hipsparseSpMV CSR double, SPMV_CSR_ALG2 (stream)");
  check_spmv<float>(h, a, false, true, HIPSPARSE_SPMV_ALG_DEFAULT, "hipsparseSpMV CSR float transposed, SPMV_ALG_DEFAULT");
  check_spmv<float>(h, a, true, false, HIPSPARSE_SPMV_COO_ALG1, "hipsparseSpMV COO float, SPMV_COO_ALG1");
  check_spmv<double>(h, a, true, false, HIPSPARSE_SPMV_COO_ALG2, "hipsparseSpMV COO double, SPMV_COO_ALG2");
  SPARSE_CHECK(hipsparseDestroy(h));
  printf("PASS\n");
  return 0;
}

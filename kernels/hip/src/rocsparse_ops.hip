// rocSPARSE (Debian's librocsparse0, device code compiled by AMD) called
// unmodified: csrmv in float and double, with and without the analysis step
// (the adaptive algorithm), sdoti/ddoti, csr2coo and csr2dense, each checked
// against the same computation on the host. The matrix is 200 x 150 with
// 1..9 entries per row; values are small integers and x holds multiples of
// 1/4, so every sum is exact in float and double whatever the order.
// link: -lrocsparse
#include "common.h"

#include <rocsparse/rocsparse.h>
#include <vector>

#define RS(call)                                                               \
  do {                                                                         \
    rocsparse_status rs_ = (call);                                             \
    if (rs_ != rocsparse_status_success) {                                     \
      fprintf(stderr, "%s:%d: %s failed: rocsparse status %d\n", __FILE__,     \
              __LINE__, #call, (int)rs_);                                      \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

static const int M = 200, N = 150;

struct Csr {
  std::vector<int> row_ptr, col;
  std::vector<double> val;
};

static Csr make_matrix() {
  Csr a;
  uint32_t seed = 12345;
  a.row_ptr.push_back(0);
  for (int r = 0; r < M; r++) {
    int k = 1 + (int)(next_rand(&seed) % 9);
    int c = (int)(next_rand(&seed) % 16);
    for (int j = 0; j < k && c < N; j++) {
      a.col.push_back(c);
      a.val.push_back((double)((int)(next_rand(&seed) % 17) - 8));
      c += 1 + (int)(next_rand(&seed) % 20);
    }
    a.row_ptr.push_back((int)a.col.size());
  }
  return a;
}

template <class T>
static T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(hipMalloc(&d, h.size() * sizeof(T)));
  CHECK(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

template <class T>
static std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return h;
}

template <class T>
static rocsparse_status csrmv(rocsparse_handle h, int nnz, const T *alpha, rocsparse_mat_descr d,
                              const T *val, const int *rp, const int *ci, rocsparse_mat_info info,
                              const T *x, const T *beta, T *y);
template <>
rocsparse_status csrmv<float>(rocsparse_handle h, int nnz, const float *alpha,
                              rocsparse_mat_descr d, const float *val, const int *rp,
                              const int *ci, rocsparse_mat_info info, const float *x,
                              const float *beta, float *y) {
  return rocsparse_scsrmv(h, rocsparse_operation_none, M, N, nnz, alpha, d, val, rp, ci, info, x,
                          beta, y);
}
template <>
rocsparse_status csrmv<double>(rocsparse_handle h, int nnz, const double *alpha,
                               rocsparse_mat_descr d, const double *val, const int *rp,
                               const int *ci, rocsparse_mat_info info, const double *x,
                               const double *beta, double *y) {
  return rocsparse_dcsrmv(h, rocsparse_operation_none, M, N, nnz, alpha, d, val, rp, ci, info, x,
                          beta, y);
}

template <class T>
static void check_csrmv(rocsparse_handle h, rocsparse_mat_descr descr, const Csr &a,
                        bool analysed, const char *what) {
  int nnz = (int)a.col.size();
  std::vector<T> val(a.val.begin(), a.val.end()), x(N), y0(M);
  for (int i = 0; i < N; i++) x[i] = (T)((i % 13) - 6) * (T)0.25;
  for (int i = 0; i < M; i++) y0[i] = (T)(i % 5);
  T alpha = 2, beta = -1;
  T *dval = upload(val), *dx = upload(x), *dy = upload(y0);
  int *drp = upload(a.row_ptr), *dci = upload(a.col);
  rocsparse_mat_info info = nullptr;
  if (analysed) {
    RS(rocsparse_create_mat_info(&info));
    if (sizeof(T) == 4)
      RS(rocsparse_scsrmv_analysis(h, rocsparse_operation_none, M, N, nnz, descr,
                                   (const float *)dval, drp, dci, info));
    else
      RS(rocsparse_dcsrmv_analysis(h, rocsparse_operation_none, M, N, nnz, descr,
                                   (const double *)dval, drp, dci, info));
  }
  RS(csrmv<T>(h, nnz, &alpha, descr, dval, drp, dci, info, dx, &beta, dy));
  std::vector<T> y = download(dy, M);
  for (int r = 0; r < M; r++) {
    T want = 0;
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) want += val[k] * x[a.col[k]];
    want = alpha * want + beta * y0[r];
    EXPECT_EQ(what, r, y[r], want);
  }
  if (info) RS(rocsparse_destroy_mat_info(info));
  CHECK(hipFree(dval));
  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  CHECK(hipFree(drp));
  CHECK(hipFree(dci));
}

int main() {
  Csr a = make_matrix();
  int nnz = (int)a.col.size();
  printf("rocsparse: %d x %d, %d nonzeros\n", M, N, nnz);
  rocsparse_handle h;
  RS(rocsparse_create_handle(&h));
  RS(rocsparse_set_pointer_mode(h, rocsparse_pointer_mode_host));
  rocsparse_mat_descr descr;
  RS(rocsparse_create_mat_descr(&descr));

  check_csrmv<float>(h, descr, a, false, "scsrmv");
  check_csrmv<double>(h, descr, a, false, "dcsrmv");
  check_csrmv<float>(h, descr, a, true, "scsrmv adaptive");
  check_csrmv<double>(h, descr, a, true, "dcsrmv adaptive");

  // Sparse dot: x sparse (the first row's pattern spread out), y dense.
  {
    const int n = 64;
    std::vector<int> ind(n);
    std::vector<float> xv(n), y(4 * n);
    std::vector<double> xd(n), yd(4 * n);
    for (int i = 0; i < n; i++) {
      ind[i] = 3 * i + (i & 1);
      xv[i] = (float)((i % 9) - 4);
      xd[i] = xv[i] * 0.5;
    }
    for (int i = 0; i < 4 * n; i++) {
      y[i] = (float)((i % 7) - 3) * 0.5f;
      yd[i] = y[i];
    }
    float want = 0;
    double wantd = 0;
    for (int i = 0; i < n; i++) {
      want += xv[i] * y[ind[i]];
      wantd += xd[i] * yd[ind[i]];
    }
    int *dind = upload(ind);
    float *dx = upload(xv), *dy = upload(y);
    double *dxd = upload(xd), *dyd = upload(yd);
    float got;
    double gotd;
    RS(rocsparse_sdoti(h, n, dx, dind, dy, &got, rocsparse_index_base_zero));
    RS(rocsparse_ddoti(h, n, dxd, dind, dyd, &gotd, rocsparse_index_base_zero));
    EXPECT_EQ("sdoti", 0, got, want);
    EXPECT_EQ("ddoti", 0, gotd, wantd);
    CHECK(hipFree(dind));
    CHECK(hipFree(dx));
    CHECK(hipFree(dy));
    CHECK(hipFree(dxd));
    CHECK(hipFree(dyd));
  }

  // Conversions: csr2coo (row indices) and csr2dense (column-major, ld = M).
  {
    std::vector<float> val(a.val.begin(), a.val.end());
    int *drp = upload(a.row_ptr), *dci = upload(a.col);
    float *dval = upload(val);
    int *dcoo;
    CHECK(hipMalloc(&dcoo, nnz * sizeof(int)));
    RS(rocsparse_csr2coo(h, drp, nnz, M, dcoo, rocsparse_index_base_zero));
    std::vector<int> coo = download(dcoo, nnz);
    for (int r = 0; r < M; r++)
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) EXPECT_EQ("csr2coo", k, coo[k], r);
    float *ddense;
    CHECK(hipMalloc(&ddense, (size_t)M * N * sizeof(float)));
    RS(rocsparse_scsr2dense(h, M, N, descr, dval, drp, dci, ddense, M));
    std::vector<float> dense = download(ddense, (size_t)M * N);
    std::vector<float> want((size_t)M * N, 0.0f);
    for (int r = 0; r < M; r++)
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) want[(size_t)a.col[k] * M + r] = val[k];
    for (size_t i = 0; i < want.size(); i++) EXPECT_EQ("csr2dense", (long)i, dense[i], want[i]);
    CHECK(hipFree(drp));
    CHECK(hipFree(dci));
    CHECK(hipFree(dval));
    CHECK(hipFree(dcoo));
    CHECK(hipFree(ddense));
  }

  RS(rocsparse_destroy_mat_descr(descr));
  RS(rocsparse_destroy_handle(h));
  return finish("rocsparse_ops", "scsrmv/dcsrmv (plain and adaptive), sdoti/ddoti, csr2coo, scsr2dense");
}

/* gs_amg_classical.c: one level of classical AMG where A lives (both backends, through the
 * table's steps): the classical strength (row by row, couplings of the diagonal's sign weak),
 * PMIS C/F splitting, and the extended+i interpolation in its matrix form (Li, Sjoegreen and
 * Yang 2021, hypre's device path): P_F = -D^-1 M A_FC, M = I + the strong F-F couplings
 * distributed over the F neighbour's strong C points and the point itself, then truncated to
 * interp_max_elements entries a row. The restriction is P^T, or (GS_AMG_RESTRICT_AT) Q^T with
 * Q the same interpolation built from A^T on A's C/F splitting. */
#include "gs_amg_internal.h"
#include "gs_buf.h"

#include <stdio.h>
#include <string.h>

/* a row longer than this many times the level's mean is dense; on a matrix with irregular rows
 * (a circuit's power-law degrees) already above the lower factor, which keeps the next rows of
 * the degree tail out of the coarse operators as well */
#define GS_AMG_DENSE_ROW 10
#define GS_AMG_DENSE_ROW_IRREGULAR 6
#define GS_AMG_GROWTH 1.5   /* a coarse operator with more entries than this times A's grew */

/* the length beyond which a row of level l's A is dense: more than factor x the mean row */
static int32_t dense_len(const gs_amg *amg, const gs_csr *A)
{
    const int64_t mean = A->rows > 0 ? A->nnz / A->rows : 0;
    const int factor = amg->irregular ? GS_AMG_DENSE_ROW_IRREGULAR : GS_AMG_DENSE_ROW;
    return (int32_t)(factor * (mean > 1 ? mean : 1));
}

/* level l's P truncated to pmax entries a row from X and its diagonals d, and R: Q^T for Q the
 * same truncation of A^T's Xt (dt) when given, else P^T */
static gs_status p_and_r(gs_amg *amg, int l, const gs_csr *X, const gs_buf *d, const gs_csr *Xt,
                         const gs_buf *dt, int32_t nc, int pmax, gs_csr **P, gs_csr **R)
{
    gs_status st = GS_OK;
    const int32_t *cmap = amg->lev[l].agg->data;
    gs_csr *Q = NULL;
    GS_CHECK(amg->ops->classical_p(X, cmap, d->data, nc, pmax, amg->p.interp_trunc, P));
    gs_amg_trace(amg, l, "P (truncated)");
    if (Xt) {
        GS_CHECK(amg->ops->classical_p(Xt, cmap, dt->data, nc, pmax, amg->p.interp_trunc, &Q));
        GS_CHECK(gs_spgemm_transpose(Q, R));
        gs_amg_trace(amg, l, "R = Q^T (A^T's interpolation)");
    } else {
        GS_CHECK(gs_spgemm_transpose(*P, R));
        gs_amg_trace(amg, l, "R = P^T");
    }
done:
    gs_csr_destroy(&Q);
    return st;
}

/* The extended+i interpolation of A (strength graph S) on level l's C/F splitting before
 * truncation: X = M A_FC and its diagonals d (new, rows + 1); beta: scratch of rows + 1 */
static gs_status interp_x(gs_amg *amg, int l, const gs_csr *A, const gs_csr *S, int32_t nc,
                          gs_spgemm_method m, gs_buf *beta, gs_buf **d, gs_csr **X)
{
    gs_status st = GS_OK;
    const int32_t *cmap = amg->lev[l].agg->data;
    gs_csr *AFC = NULL, *M = NULL;
    GS_CHECK(gs_buf_create((int64_t)A->rows + 1, GS_F64, amg->loc, "interpolation", d));
    GS_CHECK(amg->ops->classical_fc(A, S, cmap, nc, &AFC, beta->data));
    GS_CHECK(amg->ops->classical_ff(A, S, cmap, beta->data, &M, (*d)->data));
    gs_amg_trace(amg, l, "A_FC, M");
    GS_CHECK(gs_spgemm(M, AFC, m, X));
    gs_amg_trace(amg, l, "M A_FC");
done:
    gs_csr_destroy(&AFC);
    gs_csr_destroy(&M);
    return st;
}

/* A^T's interpolation before truncation on level l's C/F splitting: Xt and its diagonals dt,
 * as for A (its own strength graph) */
static gs_status transposed_interp(gs_amg *amg, int l, int32_t dense, int32_t nc,
                                   gs_spgemm_method m, gs_buf *beta, gs_buf **dt, gs_csr **Xt)
{
    gs_status st = GS_OK;
    gs_csr *At = NULL, *St = NULL;
    GS_CHECK(gs_spgemm_transpose(amg->lev[l].A, &At));
    GS_CHECK(amg->ops->classical_strength(At, amg->p.classical_theta, dense, &St));
    GS_CHECK(interp_x(amg, l, At, St, nc, m, beta, dt, Xt));
done:
    gs_csr_destroy(&At);
    gs_csr_destroy(&St);
    return st;
}

/* The C/F splitting of level l into its agg, then (when it coarsens: 0 < *nc < rows) the
 * interpolation before truncation, X = M A_FC, with its diagonals d (beta: the strong C
 * couplings' row sums); *dense the dense-row length */
static gs_status split_interp(gs_amg *amg, int l, gs_spgemm_method m, int32_t *nc,
                              int32_t *dense_out, gs_buf **beta, gs_buf **d, gs_csr **X,
                              double *ph)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    const gs_amg_ops *ops = amg->ops;
    gs_csr *S = NULL;
    double t0, t1, t2;
    *nc = 0;
    GS_CHECK(gs_amg_sync(amg, &t0));
    const int32_t dense = dense_len(amg, A);
    *dense_out = dense;
    GS_CHECK(ops->classical_strength(A, amg->p.classical_theta, dense, &S));
    gs_amg_trace(amg, l, "classical strength");
    GS_CHECK(gs_amg_sync(amg, &t1));
    L->nodes = A->rows;
    GS_CHECK(gs_buf_create(A->rows, GS_I32, amg->loc, "C/F splitting", &L->agg));
    GS_CHECK(ops->pmis(S, A, dense, L->agg->data, nc));
    gs_amg_trace(amg, l, "PMIS");
    GS_CHECK(gs_amg_sync(amg, &t2));
    ph[GS_AMG_PHASE_STRENGTH] += t1 - t0;
    ph[GS_AMG_PHASE_AGGREGATE] += t2 - t1;
    if (*nc == 0 || *nc >= A->rows) goto done; /* no coarsening: this level is the coarsest */
    GS_CHECK(gs_buf_create((int64_t)A->rows + 1, GS_F64, amg->loc, "interpolation", beta));
    GS_CHECK(interp_x(amg, l, A, S, *nc, m, *beta, d, X));
done:
    gs_csr_destroy(&S);
    return st;
}

gs_status gs_amg_classical_p(gs_amg *amg, int l, gs_spgemm_method m, int32_t *nc, gs_csr **P,
                             double *ph)
{
    gs_status st = GS_OK;
    gs_csr *X = NULL;
    gs_buf *beta = NULL, *d = NULL;
    int32_t dense = 0;
    double t0, t1;
    *P = NULL;
    GS_CHECK(split_interp(amg, l, m, nc, &dense, &beta, &d, &X, ph));
    if (!X) goto done;
    GS_CHECK(gs_amg_sync(amg, &t0));
    GS_CHECK(amg->ops->classical_p(X, amg->lev[l].agg->data, d->data, *nc,
                                   gs_amg_interp_max(amg), amg->p.interp_trunc, P));
    gs_amg_trace(amg, l, "P (truncated)");
    GS_CHECK(gs_amg_sync(amg, &t1));
    ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
done:
    gs_csr_destroy(&X);
    gs_buf_destroy(&beta);
    gs_buf_destroy(&d);
    return st;
}

gs_status gs_amg_classical(gs_amg *amg, int l, gs_spgemm_method m, int32_t *nc, double *ph)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    gs_csr *X = NULL, *P = NULL, *R = NULL, *Ac = NULL, *Xt = NULL;
    gs_buf *beta = NULL, *d = NULL, *dt = NULL;
    int32_t dense = 0;
    double t0, t1, t2;
    GS_CHECK(split_interp(amg, l, m, nc, &dense, &beta, &d, &X, ph));
    if (!X) goto done; /* no coarsening: this level is the coarsest */
    if (amg->p.restriction == GS_AMG_RESTRICT_AT)
        GS_CHECK(transposed_interp(amg, l, dense, *nc, m, beta, &dt, &Xt));
    /* P truncated to pmax entries a row; while the Galerkin product holds more entries than A
     * (it would explode down the levels), again with half as many */
    const int pmax0 = gs_amg_interp_max(amg);
    int pmax_used = pmax0;
    for (int pmax = pmax0;;) {
        pmax_used = pmax;
        GS_CHECK(gs_amg_sync(amg, &t0));
        GS_CHECK(p_and_r(amg, l, X, d, Xt, dt, *nc, pmax, &P, &R));
        GS_CHECK(gs_amg_sync(amg, &t1));
        ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
        GS_CHECK(gs_galerkin(A, P, R, m, &Ac));
        amg->rep.prolongators++;
        amg->rep.galerkin_products++;
        gs_amg_trace(amg, l, "R (A P)");
        GS_CHECK(gs_amg_sync(amg, &t2));
        ph[GS_AMG_PHASE_RAP] += t2 - t1;
        if (pmax == 1 || Ac->nnz <= GS_AMG_GROWTH * (double)A->nnz) {
            if (pmax != pmax0) {
                size_t len = strlen(amg->rep.choice);
                snprintf(amg->rep.choice + len, sizeof amg->rep.choice - len,
                         "%slevel %d: P truncated to %d a row (the coarse operator grew)",
                         len ? "; " : "", l, pmax);
            }
            break;
        }
        pmax /= 2;
        gs_csr_destroy(&P);
        gs_csr_destroy(&R);
        gs_csr_destroy(&Ac);
    }
    L->P = P;
    L->R = R;
    L->pmax = pmax_used;
    amg->lev[l + 1].Aown = Ac;
    P = R = Ac = NULL;
done:
    gs_csr_destroy(&X);
    gs_csr_destroy(&Xt);
    gs_csr_destroy(&P);
    gs_csr_destroy(&R);
    gs_csr_destroy(&Ac);
    gs_buf_destroy(&beta);
    gs_buf_destroy(&d);
    gs_buf_destroy(&dt);
    return st;
}

gs_status gs_amg_classical_values(gs_amg *amg, int l, gs_spgemm_method m, double *ph)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    gs_csr *S = NULL, *X = NULL, *Xt = NULL, *P = NULL, *R = NULL, *Ac = NULL;
    gs_buf *beta = NULL, *d = NULL, *dt = NULL;
    double t0, t1, t2;
    const int32_t nc = amg->lev[l + 1].A->rows;
    GS_CHECK(gs_amg_sync(amg, &t0));
    const int32_t dense = dense_len(amg, A);
    GS_CHECK(amg->ops->classical_strength(A, amg->p.classical_theta, dense, &S));
    GS_CHECK(gs_buf_create((int64_t)A->rows + 1, GS_F64, amg->loc, "interpolation", &beta));
    GS_CHECK(interp_x(amg, l, A, S, nc, m, beta, &d, &X)); /* on the kept C/F splitting */
    if (amg->p.restriction == GS_AMG_RESTRICT_AT)
        GS_CHECK(transposed_interp(amg, l, dense, nc, m, beta, &dt, &Xt));
    GS_CHECK(p_and_r(amg, l, X, d, Xt, dt, nc, L->pmax, &P, &R));
    GS_CHECK(gs_amg_sync(amg, &t1));
    ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
    GS_CHECK(gs_galerkin(A, P, R, m, &Ac));
    gs_amg_trace(amg, l, "R (A P)");
    GS_CHECK(gs_amg_sync(amg, &t2));
    ph[GS_AMG_PHASE_RAP] += t2 - t1;
    amg->rep.prolongators++;
    amg->rep.galerkin_products++;
    gs_csr_destroy(&L->P);
    gs_csr_destroy(&L->R);
    L->P = P;
    L->R = R;
    P = R = NULL;
    gs_csr_destroy(&amg->lev[l + 1].Aown);
    amg->lev[l + 1].Aown = Ac;
    amg->lev[l + 1].A = Ac;
    Ac = NULL;
done:
    gs_csr_destroy(&S);
    gs_csr_destroy(&X);
    gs_csr_destroy(&Xt);
    gs_csr_destroy(&P);
    gs_csr_destroy(&R);
    gs_csr_destroy(&Ac);
    gs_buf_destroy(&beta);
    gs_buf_destroy(&d);
    gs_buf_destroy(&dt);
    return st;
}

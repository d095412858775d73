/* gs_amg_dist_galerkin.c: P = S T and A_c = P^T (A P) across the ranks (gs_amg_dist.h). */
#include "gs_amg_dist.h"

#include <string.h>

#include "gs_amg_dist_impl.h"
#include "gs_comm.h"
#include "gs_spgemm.h"

/* the distinct values of a[0..na) and b[0..nb) (both at loc, each below bound) outside
 * [c0, c0 + nc), ascending, into *out (host) and *dout (at loc), their count into *m: the other
 * ranks' columns a level's rows name (selected, sorted and made unique where the matrices
 * live) */
static gs_status other_columns(const gs_amg_dist *amg, const int64_t *a, int64_t na,
                               const int64_t *b, int64_t nb, int64_t c0, int32_t nc,
                               int64_t bound, int64_t **out, int64_t **dout, int64_t *m)
{
    gs_status st = GS_OK;
    int64_t *d = NULL;
    GS_CHECK(amg->be->alloc(((size_t)(na + nb) + 1) * sizeof *d, "columns", (void **)&d));
    if (na > 0) GS_CHECK(amg->be->move(d, a, (size_t)na * sizeof *d));
    if (nb > 0) GS_CHECK(amg->be->move(d + na, b, (size_t)nb * sizeof *d));
    GS_CHECK(gs_amg_dist_dops(amg)->sort_unique(d, na + nb, c0, nc, bound, out, dout, m));
done:
    if (d) amg->be->free(d);
    return st;
}

/* the CSR at loc of ne entries with global columns g and values v (all at loc) whose rows come
 * from offsets rp (nrp + 1 of them, at loc: entry q of block i is in row i, or rmap[i] when
 * rmap (at loc) is given), in the column space [own (c0 .. c0 + nc) | the ascending global
 * numbers of dmap (at loc, nmap of them)]: rows sorted, duplicates summed */
static gs_status entries_csr(const gs_amg_dist *amg, int32_t rows, int64_t ne, int32_t nrp,
                             const int64_t *rp, const int32_t *rmap, const int64_t *g,
                             const double *v, int64_t c0, int32_t nc, const int64_t *dmap,
                             int64_t nmap, gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *dr = NULL, *dc = NULL;
    GS_CHECK(amg->be->alloc(((size_t)ne + 1) * sizeof *dr, "entries", (void **)&dr));
    GS_CHECK(gs_amg_dist_dops(amg)->row_index(nrp, rp, rmap, dr));
    GS_CHECK(amg->be->alloc(((size_t)ne + 1) * sizeof *dc, "entries", (void **)&dc));
    GS_CHECK(gs_amg_dist_dops(amg)->map_cols(g, ne, c0, nc, dmap, nmap, dc));
    GS_CHECK(gs_sparse_coo_csr(amg->loc, rows, (int32_t)(nc + nmap), ne, dr, dc, v, out));
done:
    if (dr) amg->be->free(dr);
    if (dc) amg->be->free(dc);
    return st;
}

/* out (at loc) = base + the place of each of v[0..n) (at loc, none in [c0, c0 + base)) in the
 * ascending dmap (at loc) */
static gs_status map_places(const gs_amg_dist *amg, const int64_t *v, int64_t n, int64_t c0,
                            int32_t base, const int64_t *dmap, int64_t nmap, int32_t **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    GS_CHECK(amg->be->alloc(((size_t)n + 1) * sizeof **out, "column map", (void **)out));
    GS_CHECK(gs_amg_dist_dops(amg)->map_cols(v, n, c0, base, dmap, nmap, *out));
done:
    return st;
}

/* The rows of a tentative prolongator T with at most one entry a row that the halo of D names,
 * as gs_dist_op_fetch_rows gives them (*rp offsets, *g global columns and *v values, all at
 * loc; *ne entries): two halo exchanges of D carry each row's aggregate (as a double, exact
 * below 2^53) and value instead of a row fetch (row lengths, offsets, packing, the entries
 * rank to rank), and the rows' entries are gathered where they live. */
static gs_status tentative_halo(const gs_amg_dist *amg, const gs_dist_op *D, const gs_csr *T,
                                int64_t c0, int64_t **rp, int64_t *ne, int64_t **g, double **v)
{
    gs_status st = GS_OK;
    const int64_t nc = D->cols, nh = D->nhalo;
    gs_vec *x = NULL;
    *rp = NULL, *ne = 0, *g = NULL, *v = NULL;
    if (T->rows != D->cols)
        GS_FAIL(GS_ERR_INTERNAL, "tentative halo: %d rows, the operator has %d columns", T->rows,
                D->cols);
    GS_CHECK(gs_vec_create(2 * (nc + nh), amg->loc, &x));
    double *xg = x->data, *xv = x->data + nc + nh; /* own rows, then the halo's */
    GS_CHECK(gs_amg_dist_dops(amg)->first_entry(T, c0, xg, xv));
    GS_CHECK(gs_dist_op_halo(D, xg, xg + nc));
    GS_CHECK(gs_dist_op_halo(D, xv, xv + nc));
    GS_CHECK(amg->be->alloc(((size_t)nh + 1) * sizeof **rp, "tentative halo", (void **)rp));
    GS_CHECK(amg->be->alloc(((size_t)nh + 1) * sizeof **g, "tentative halo", (void **)g));
    GS_CHECK(amg->be->alloc(((size_t)nh + 1) * sizeof **v, "tentative halo", (void **)v));
    GS_CHECK(gs_amg_dist_dops(amg)->first_entry_rows(nh, xg + nc, xv + nc, *rp, *g, *v));
    GS_CHECK(amg->be->get(ne, *rp + nh, sizeof *ne));
done:
    if (st != GS_OK) {
        if (*rp) amg->be->free(*rp);
        if (*g) amg->be->free(*g);
        if (*v) amg->be->free(*v);
        *rp = NULL, *g = NULL, *v = NULL;
    }
    gs_vec_destroy(&x);
    return st;
}

/* P = S T at loc in compact columns (own aggregates, then the other ranks' aggregates that the
 * halo's tentative rows name), and its SpMV form; S NULL: P = T (taken over) */
gs_status gs_amg_dist_prolongator(gs_amg_dist *amg, int l, const gs_csr *S, gs_csr **T, int one,
                                  const gs_part *cpart)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    const gs_dist_op *D = L->DA;
    gs_csr *P = NULL, *Th = NULL, *Te = NULL;
    int64_t *rp = NULL, *g = NULL, *pmap = NULL, *dpm = NULL;
    double *v = NULL;
    int64_t npm = 0, ne = 0;
    const int32_t nc = (*T)->cols;
    const int64_t c0 = cpart->start[gs_comm_rank()];
    if (S) {
        if (one && (*T)->nnz <= (*T)->rows) /* one entry a row at most: the halo exchange */
            GS_CHECK(tentative_halo(amg, D, *T, c0, &rp, &ne, &g, &v));
        else
            GS_CHECK(gs_dist_op_fetch_rows(D, *T, c0, nc, NULL, &rp, &ne, &g, &v));
        gs_amg_dist_trace(amg, l, "   (T's rows fetched)");
        /* other ranks' aggregates only */
        GS_CHECK(other_columns(amg, NULL, 0, g, ne, c0, nc, cpart->start[cpart->nranks], &pmap,
                               &dpm, &npm));
        GS_CHECK(entries_csr(amg, D->nhalo, ne, D->nhalo, rp, NULL, g, v, c0, nc, dpm, npm, &Th));
        GS_CHECK(gs_sparse_vcat(*T, NULL, Th, (int32_t)(nc + npm), &Te));
        if (one)
            GS_CHECK(amg->ops->times_tentative(S, Te, &P));
        else
            GS_CHECK(gs_spgemm(S, Te, GS_SPGEMM_AUTO, &P));
        gs_csr_destroy(T);
        gs_amg_dist_trace(amg, l, "   (S T)");
    } else {
        P = *T;
        *T = NULL;
        GS_CHECK(gs_alloc_array(1, sizeof *pmap, "prolongator", (void **)&pmap));
    }
    GS_CHECK(gs_dist_op_from_compact(&P, &pmap, (int32_t)npm, D->row0, cpart, amg->loc,
                                     amg->p.select, l, &L->DP));
done:
    gs_csr_destroy(&P);
    gs_csr_destroy(&Th);
    gs_csr_destroy(&Te);
    if (rp) amg->be->free(rp);
    if (g) amg->be->free(g);
    if (v) amg->be->free(v);
    if (dpm) amg->be->free(dpm);
    gs_free(pmap);
    return st;
}

/* A_c = P^T (A P): this rank's coarse rows in compact columns and their SpMV form. A P takes the
 * rows of P that A's halo names (their owners send them); P^T (A P) gives rows of other ranks'
 * coarse points too (P's halo columns), which go to their owners as entries and are added in. */
gs_status gs_amg_dist_galerkin(gs_amg_dist *amg, int l, const gs_part *cpart, gs_dist_op **out)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    const gs_dist_op *D = L->DA, *DP = L->DP, *DR = L->DR;
    const gs_dist_ops *ops = gs_amg_dist_dops(amg);
    const int R = gs_comm_size();
    const int32_t nc = DP->cols, npm = DP->nhalo;
    const int64_t c0 = DP->col0;
    gs_csr *Ph = NULL, *Pe = NULL, *AP = NULL, *Wo = NULL, *Wr = NULL, *Rv = NULL, *Ac = NULL;
    int64_t *gm = NULL, *rp = NULL, *g = NULL, *xmap = NULL, *hc = NULL, *sinfo = NULL,
            *rinfo = NULL, *dxm = NULL, *dsc = NULL, *drc = NULL,
            *dhc = NULL, *poff = NULL, *dpoff = NULL;
    int32_t *m1 = NULL, *m2 = NULL, *prow = NULL, *dprow = NULL, *hrp = NULL;
    const int64_t bound = cpart->start[cpart->nranks];
    double *v = NULL, *dsv = NULL, *drv = NULL;
    size_t *sb = NULL, *rb = NULL, *isb = NULL, *irb = NULL;
    int64_t nx = 0, nh = 0, nf = 0;
    /* P's rows at A's halo, their columns as global numbers */
    GS_CHECK(amg->be->alloc(((size_t)npm + 1) * sizeof *gm, "coarse columns", (void **)&gm));
    if (npm > 0) GS_CHECK(amg->be->put(gm, DP->halo, (size_t)npm * sizeof *gm));
    GS_CHECK(gs_dist_op_fetch_rows(D, DP->compact, c0, nc, gm, &rp, &nf, &g, &v));
    gs_amg_dist_trace(amg, l, "   (fetch)");
    /* X: own coarse columns, then the others P and those rows hold, ascending */
    GS_CHECK(other_columns(amg, gm, npm, g, nf, c0, nc, bound, &xmap, &dxm, &nx));
    GS_CHECK(map_places(amg, gm, npm, c0, nc, dxm, nx, &m1));
    GS_CHECK(entries_csr(amg, D->nhalo, nf, D->nhalo, rp, NULL, g, v, c0, nc, dxm, nx, &Ph));
    { /* P's own rows, its halo columns renumbered into X as they are copied, over the fetched */
        const gs_col_map pm = {nc, m1};
        GS_CHECK(gs_sparse_vcat(DP->compact, &pm, Ph, (int32_t)(nc + nx), &Pe));
    }
    gs_csr_destroy(&Ph);
    gs_amg_dist_trace(amg, l, "  P's halo rows");
    GS_CHECK(gs_spgemm(D->compact, Pe, GS_SPGEMM_AUTO, &AP));
    gs_csr_destroy(&Pe);
    gs_amg_dist_trace(amg, l, "  A P");
    /* P^T (A P) from R's two parts: its own rows (diag) and the rows of other ranks' coarse
     * points (rem, one a halo column of P), which go to their owners as entries */
    GS_CHECK(gs_spgemm(DR->diag, AP, GS_SPGEMM_AUTO, &Wo));
    if (DR->rem)
        GS_CHECK(gs_spgemm(DR->rem, AP, GS_SPGEMM_AUTO, &Wr));
    else
        GS_CHECK(gs_sparse_row_slice(Wo, nc, nc, &Wr));
    gs_csr_destroy(&AP);
    gs_amg_dist_trace(amg, l, "  P^T (A P)");
    /* Wr's rows go to their owners where the matrices live (global columns, values); each
     * owner learns which of its rows and how long from a short host list (row, length) */
    GS_CHECK(gs_alloc_array((size_t)npm + 1, sizeof *hrp, "coarse entries", (void **)&hrp));
    GS_CHECK(amg->be->get(hrp, Wr->rowptr, ((size_t)npm + 1) * sizeof *hrp));
    GS_CHECK(gs_alloc_array(2 * (size_t)npm + 1, sizeof *sinfo, "coarse entries",
                            (void **)&sinfo));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sb, "coarse entries", (void **)&sb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rb, "coarse entries", (void **)&rb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *isb, "coarse entries", (void **)&isb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *irb, "coarse entries", (void **)&irb));
    memset(sb, 0, (size_t)R * sizeof *sb);
    memset(rb, 0, (size_t)R * sizeof *rb);
    memset(isb, 0, (size_t)R * sizeof *isb);
    for (int32_t i = 0; i < npm; i++) { /* DP->halo ascending: grouped by owner */
        const int r = gs_part_owner(cpart, DP->halo[i]);
        sinfo[2 * i] = DP->halo[i] - cpart->start[r];
        sinfo[2 * i + 1] = hrp[i + 1] - hrp[i];
        sb[r] += (size_t)(hrp[i + 1] - hrp[i]) * sizeof(int64_t);
        isb[r] += 2 * sizeof(int64_t);
    }
    const int64_t ne = hrp[npm];
    GS_CHECK(amg->be->alloc(((size_t)ne + 1) * sizeof *dsc, "coarse entries", (void **)&dsc));
    GS_CHECK(amg->be->alloc(((size_t)ne + 1) * sizeof *dsv, "coarse entries", (void **)&dsv));
    /* Wr's rows in order, each where Wr has it: the blocks by owner follow DP->halo's order */
    if (ne > 0) GS_CHECK(ops->pack_rows(Wr, npm, NULL, NULL, c0, nc, dxm, dsc, dsv));
    gs_amg_dist_trace(amg, l, "   (pack)");
    GS_CHECK(gs_comm_alltoall_sizes(isb, irb));
    int64_t ni = 0;
    for (int r = 0; r < R; r++) ni += (int64_t)(irb[r] / sizeof(int64_t));
    GS_CHECK(gs_alloc_array((size_t)ni + 1, sizeof *rinfo, "coarse entries", (void **)&rinfo));
    GS_CHECK(gs_comm_alltoallv(sinfo, isb, rinfo, irb));
    /* rinfo: the senders' (row, length) pairs, by rank; the entries arrive in that order, so
     * the pairs' offsets and rows give each entry's row where the entries live */
    const int64_t npr = ni / 2;
    if (npr > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "%lld coarse rows sent to one rank (below 2^31)",
                (long long)npr);
    GS_CHECK(gs_alloc_array((size_t)npr + 1, sizeof *poff, "coarse entries", (void **)&poff));
    GS_CHECK(gs_alloc_array((size_t)npr + 1, sizeof *prow, "coarse entries", (void **)&prow));
    int64_t nr = 0;
    poff[0] = 0;
    for (int r = 0, q = 0; r < R; r++)
        for (size_t k = 0; k < irb[r] / (2 * sizeof(int64_t)); k++, q++) {
            rb[r] += (size_t)rinfo[2 * q + 1] * sizeof(int64_t);
            nr += rinfo[2 * q + 1];
            poff[q + 1] = nr;
            prow[q] = (int32_t)rinfo[2 * q];
        }
    GS_CHECK(gs_amg_dist_to_loc(amg, poff, npr + 1, sizeof *poff, "coarse entries",
                                (void **)&dpoff));
    GS_CHECK(gs_amg_dist_to_loc(amg, prow, npr, sizeof *prow, "coarse entries", (void **)&dprow));
    GS_CHECK(amg->be->alloc(((size_t)nr + 1) * sizeof *drc, "coarse entries", (void **)&drc));
    GS_CHECK(amg->be->alloc(((size_t)nr + 1) * sizeof *drv, "coarse entries", (void **)&drv));
    { /* columns and values (doubles: the same byte counts) in one exchange */
        const void *snd[2] = {dsc, dsv};
        void *rcv[2] = {drc, drv};
        GS_CHECK(gs_dist_alltoallv_at(amg->loc, 2, snd, sb, rcv, rb));
    }
    gs_amg_dist_trace(amg, l, "   (exchange)");
    /* the coarse level's halo: X's columns and the received ones that are not its own */
    GS_CHECK(other_columns(amg, dxm, nx, drc, nr, c0, nc, bound, &hc, &dhc, &nh));
    if ((int64_t)nc + nh > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "a rank's coarse block has %lld columns (below 2^31)",
                (long long)(nc + nh));
    GS_CHECK(map_places(amg, dxm, nx, c0, nc, dhc, nh, &m2));
    gs_amg_dist_trace(amg, l, "   (halo columns)");
    GS_CHECK(entries_csr(amg, nc, nr, (int32_t)npr, dpoff, dprow, drc, drv, c0, nc, dhc, nh,
                         &Rv));
    gs_amg_dist_trace(amg, l, "   (entries)");
    { /* the own rows, their other columns renumbered into the coarse halo as they are added */
        const gs_col_map wm = {nc, m2};
        GS_CHECK(gs_sparse_add(Wo, &wm, Rv, &Ac));
    }
    gs_csr_destroy(&Wo);
    gs_amg_dist_trace(amg, l, "  coarse rows exchanged");
    GS_CHECK(gs_dist_op_from_compact(&Ac, &hc, (int32_t)nh, c0, cpart, amg->loc, amg->p.select,
                                     l + 1, out));
done:
    if (gm) amg->be->free(gm);
    if (m1) amg->be->free(m1);
    if (m2) amg->be->free(m2);
    gs_csr_destroy(&Ph);
    gs_csr_destroy(&Pe);
    gs_csr_destroy(&AP);
    gs_csr_destroy(&Wo);
    gs_csr_destroy(&Wr);
    gs_csr_destroy(&Rv);
    gs_csr_destroy(&Ac);
    if (rp) amg->be->free(rp);
    if (g) amg->be->free(g);
    if (v) amg->be->free(v);
    if (dxm) amg->be->free(dxm);
    if (dsc) amg->be->free(dsc);
    if (dsv) amg->be->free(dsv);
    if (drc) amg->be->free(drc);
    if (drv) amg->be->free(drv);
    if (dhc) amg->be->free(dhc);
    if (dpoff) amg->be->free(dpoff);
    if (dprow) amg->be->free(dprow);
    gs_free(poff);
    gs_free(prow);
    gs_free(xmap);
    gs_free(hc);
    gs_free(hrp);
    gs_free(sinfo);
    gs_free(rinfo);
    gs_free(sb);
    gs_free(rb);
    gs_free(isb);
    gs_free(irb);
    return st;
}

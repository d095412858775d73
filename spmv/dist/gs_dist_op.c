/* gs_dist_op.c: the distributed SpMV (gs_dist_op.h): the exchange plan, the blocks, the product. */
#include "gs_dist_op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_dist_ops.h"
#include "gs_spgemm.h"
#include "gs_time.h"

static gs_status dist_spmv(const void *D, const gs_vec *x, gs_vec *y)
{
    return gs_dist_op_spmv(D, x, y);
}

static int prof_on(void)
{
    static int on = -1;
    if (on < 0) on = getenv("GSOLVE_DIST_PROFILE") != NULL;
    return on;
}

/* CUDA IPC for the halos: every rank on one node, a device backend that has it, and
 * GSOLVE_MPI_IPC not 0 (the same on every rank) */
static int ipc_wanted_at(gs_loc loc)
{
    const char *e = getenv("GSOLVE_MPI_IPC");
    const gs_backend_ops *be = gs_backend_get(loc);
    return loc != GS_LOC_HOST && be && be->ipc_alloc && gs_comm_size() > 1 &&
           gs_comm_local_size() == gs_comm_size() && !(e && strcmp(e, "0") == 0);
}

static int ipc_wanted(const gs_dist_op *D) { return ipc_wanted_at(D->loc); }

/* the counters at D->ipc.seq (gs_dist_op.h): the products done on the stream, the send kernel's
 * ticket, the off-diagonal product's ticket, the products sent */
enum { SEQ_DONE, SEQ_SEND_TICKET, SEQ_OFFD_TICKET, SEQ_SENT, SEQ_COUNT };

/* signals on the device unless GSOLVE_MPI_IPC=host (then MPI handshakes) */
static int device_signal_wanted(const gs_backend_ops *be)
{
    const char *e = getenv("GSOLVE_MPI_IPC");
    return be->halo_send && be->flag_wait && be->flag_signal && be->peer_fork &&
           be->peer_join && be->device_id && !(e && strcmp(e, "host") == 0);
}

/* ---- the IPC arena: the operators' halo buffers */

/* An operator's IPC buffer (its received values, then its flags) is a piece of a chunk of device
 * memory this rank makes once, and each neighbour maps a chunk once: a buffer of its own for
 * every operator (cudaMalloc, its IPC handle, cudaFree) and its mapping on every neighbour cost
 * 0.05-0.8 ms and 0.02-0.7 ms an operator (6.2 ms in all for the eleven operators of 3D Poisson
 * on 4 x H200). A chunk hands out its pieces in order; one whose pieces have all come back
 * starts again from its beginning (a neighbour writes into a piece only during the products of
 * its operator, and ipc_release waits for its last flags). The first chunk is made and mapped
 * when the ranks start (gs_dist_peers_connect); chunks and mappings stay until
 * gs_dist_peers_release. */
#define ARENA_MIN_BYTES ((size_t)16 << 20)
#define ARENA_KEEP 32
#define ARENA_ALIGN ((size_t)256)
typedef struct arena_chunk {
    void *base;
    size_t bytes, used;
    int live; /* pieces handed out and not back */
    unsigned char handle[GS_IPC_HANDLE_BYTES];
} arena_chunk;
typedef struct arena_map { /* rank r's chunk `handle`, mapped here at base */
    int r;
    unsigned char handle[GS_IPC_HANDLE_BYTES];
    void *base;
} arena_map;
static struct {
    arena_chunk chunk[ARENA_KEEP];
    int n;
    arena_map *map;
    int nmap, cap;
    int used; /* an IPC set-up ran (the same on every rank) */
} g_arena;

/* a piece of `bytes` (its chunk's handle, its byte offset in the chunk) */
static gs_status arena_get(const gs_backend_ops *be, size_t bytes, void **ptr,
                           unsigned char *handle, int64_t *at)
{
    gs_status lst = GS_OK;
    const size_t need = (bytes + ARENA_ALIGN) / ARENA_ALIGN * ARENA_ALIGN;
    arena_chunk *c = NULL;
    for (int i = 0; i < g_arena.n && !c; i++)
        if (g_arena.chunk[i].bytes - g_arena.chunk[i].used >= need) c = &g_arena.chunk[i];
    if (!c) {
        if (g_arena.n == ARENA_KEEP) return GS_ERR_NOMEM; /* the halos go through MPI */
        size_t want = g_arena.n ? 2 * g_arena.chunk[g_arena.n - 1].bytes : ARENA_MIN_BYTES;
        if (want < need) want = need;
        c = &g_arena.chunk[g_arena.n];
        memset(c, 0, sizeof *c);
        lst = be->ipc_alloc(want, &c->base, c->handle);
        if (lst != GS_OK) return lst;
        c->bytes = want;
        g_arena.n++;
    }
    *ptr = (char *)c->base + c->used;
    *at = (int64_t)c->used;
    memcpy(handle, c->handle, GS_IPC_HANDLE_BYTES);
    c->used += need;
    c->live++;
    return GS_OK;
}

static void arena_put(void *p)
{
    for (int i = 0; i < g_arena.n; i++) {
        arena_chunk *c = &g_arena.chunk[i];
        if ((char *)p >= (char *)c->base && (char *)p < (char *)c->base + c->bytes) {
            if (--c->live == 0) c->used = 0;
            return;
        }
    }
}

/* rank r's chunk `handle` mapped here (once) */
static gs_status arena_map_peer(const gs_backend_ops *be, int r, const unsigned char *handle,
                                void **base)
{
    gs_status st = GS_OK, lst = GS_OK;
    for (int i = 0; i < g_arena.nmap; i++) {
        const arena_map *m = &g_arena.map[i];
        if (m->r == r && memcmp(m->handle, handle, GS_IPC_HANDLE_BYTES) == 0) {
            *base = m->base;
            return GS_OK;
        }
    }
    if (g_arena.nmap == g_arena.cap) {
        const int cap = g_arena.cap ? 2 * g_arena.cap : 16;
        arena_map *m = gs_realloc(g_arena.map, (size_t)cap * sizeof *m);
        if (!m) GS_FAIL(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for IPC "
                        "mappings", (size_t)cap * sizeof *m);
        g_arena.map = m;
        g_arena.cap = cap;
    }
    void *b = NULL;
    lst = be->ipc_open(handle, &b);
    if (lst != GS_OK) return lst;
    arena_map *m = &g_arena.map[g_arena.nmap++];
    m->r = r;
    memcpy(m->handle, handle, GS_IPC_HANDLE_BYTES);
    m->base = b;
    *base = b;
done:
    return st;
}

/* every mapping closed, then (every rank in step) the chunks freed */
static void arena_release(const gs_backend_ops *be)
{
    if (!g_arena.used) return;
    for (int i = 0; i < g_arena.nmap; i++) be->ipc_close(g_arena.map[i].base);
    (void)gs_comm_barrier(); /* no rank still maps a chunk of this one's */
    gs_error_clear();
    for (int i = 0; i < g_arena.n; i++) be->ipc_free(g_arena.chunk[i].base);
    gs_free(g_arena.map);
    memset(&g_arena, 0, sizeof g_arena);
}

static void ipc_release(gs_dist_op *D)
{
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->ipc_borrowed) goto forget; /* the lender's to release */
    if (D->ipc.dev_signal) { /* the neighbours' last "ready" written here before the buffer goes */
        if (be->flag_wait(D->nsend, D->ipc.flags + D->nrecv, D->ipc.seq + SEQ_SENT, 0) != GS_OK ||
            be->peer_join() != GS_OK || be->sync() != GS_OK)
            gs_error_clear();
    }
    if (D->ipc.buf) arena_put(D->ipc.buf); /* the neighbours' mappings stay with the arena */
    if (D->ipc.done_at) be->free(D->ipc.done_at); /* with ready_at, seq, dpeer, dsoff */
    gs_free(D->ipc.peer_base);
    gs_free(D->ipc.peer);
    gs_free(D->ipc.zoff);
    gs_comm_exchange_destroy(&D->ipc.ready);
    gs_comm_exchange_destroy(&D->ipc.done);
forget:
    D->ipc_borrowed = 0;
    memset(&D->ipc, 0, sizeof D->ipc);
}

/* what a rank tells each neighbour about its IPC buffer: where it is; where the neighbour's
 * block of the halo starts (doubles) and the byte offset of the done flag it writes (when the
 * neighbour sends to this rank, else -1); the byte offset of the ready flag it writes (when
 * this rank sends to it, else -1) */
typedef struct ipc_card {
    unsigned char handle[GS_IPC_HANDLE_BYTES]; /* the arena chunk holding the buffer */
    int64_t at;                                /* the buffer's byte offset in that chunk */
    int64_t halo, done, ready;
    int64_t gpu; /* the backend's device_id, -1 unknown */
} ipc_card;

/* the neighbours in either direction, ascending: from[] and to[] merged (both ascending) */
static int merge_ranks(const gs_dist_op *D, int *nb)
{
    int n = 0, i = 0, j = 0;
    while (i < D->nrecv || j < D->nsend) {
        int r;
        if (j >= D->nsend || (i < D->nrecv && D->from[i] < D->to[j]))
            r = D->from[i++];
        else if (i >= D->nrecv || D->to[j] < D->from[i])
            r = D->to[j++];
        else
            r = D->from[i++], j++;
        nb[n++] = r;
    }
    return n;
}

static int rank_place(const int *nb, int n, int r)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int m = (lo + hi) / 2;
        if (nb[m] < r)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* the IPC halo: this rank's buffer (the halo, then its flags) and its card to every neighbour,
 * theirs mapped; collective; on a failure anywhere every rank keeps the MPI exchange */
static gs_status ipc_setup(gs_dist_op *D)
{
    gs_status st = GS_OK, lst = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const int R = gs_comm_size();
    const int64_t nd = D->roff[D->nrecv], nflag = (int64_t)D->nrecv + D->nsend;
    const int64_t fbyte = nd * (int64_t)sizeof(double);
    unsigned char handle[GS_IPC_HANDLE_BYTES];
    ipc_card *sc = NULL, *rc = NULL;
    size_t *sb = NULL, *rb = NULL;
    int *nb = NULL;
    uint64_t *zero = NULL, *blk = NULL;
    int64_t at = 0;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sb, "halo plan", (void **)&sb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rb, "halo plan", (void **)&rb));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof *nb, "halo plan", (void **)&nb));
    const int nn = merge_ranks(D, nb);
    GS_CHECK(gs_alloc_array((size_t)nn + 1, sizeof *sc, "halo plan", (void **)&sc));
    GS_CHECK(gs_alloc_array((size_t)nn + 1, sizeof *rc, "halo plan", (void **)&rc));
    GS_CHECK(gs_alloc_array((size_t)nflag + 3, sizeof *zero, "halo plan", (void **)&zero));
    memset(sb, 0, (size_t)R * sizeof *sb);
    memset(rb, 0, (size_t)R * sizeof *rb);
    memset(handle, 0, sizeof handle);
    memset(zero, 0, ((size_t)nflag + 3) * sizeof *zero);
    const int64_t mine = be->device_id ? be->device_id() : -1;
    double tp[4] = {prof_on() ? gs_time_now() : 0, 0, 0, 0};
    /* the received values (the halo, forward; the sums for the own rows, a transpose), then
     * the flags, zero */
    g_arena.used = 1;
    lst = arena_get(be, (size_t)fbyte + ((size_t)nflag + 1) * sizeof(uint64_t), &D->ipc.buf,
                    handle, &at);
    if (lst == GS_OK) {
        D->ipc.flags = (uint64_t *)((char *)D->ipc.buf + fbyte);
        lst = be->put(D->ipc.flags, zero, ((size_t)nflag + 1) * sizeof(uint64_t));
    }
    for (int q = 0; q < nn; q++) {
        memcpy(sc[q].handle, handle, GS_IPC_HANDLE_BYTES);
        sc[q].at = at;
        sc[q].halo = sc[q].done = sc[q].ready = -1;
        sc[q].gpu = mine;
        sb[nb[q]] = rb[nb[q]] = sizeof(ipc_card);
    }
    for (int i = 0; i < D->nrecv; i++) {
        ipc_card *c = &sc[rank_place(nb, nn, D->from[i])];
        c->halo = D->roff[i];
        c->done = fbyte + (int64_t)i * (int64_t)sizeof(uint64_t);
    }
    for (int i = 0; i < D->nsend; i++)
        sc[rank_place(nb, nn, D->to[i])].ready =
            fbyte + ((int64_t)D->nrecv + i) * (int64_t)sizeof(uint64_t);
    if (prof_on()) tp[1] = gs_time_now();
    GS_CHECK(gs_comm_alltoallv(sc, sb, rc, rb));
    if (prof_on()) tp[2] = gs_time_now();
    GS_CHECK(gs_alloc_array((size_t)nn + 1, sizeof *D->ipc.peer_base, "halo plan",
                            (void **)&D->ipc.peer_base));
    GS_CHECK(gs_alloc_array((size_t)D->nsend + 1, sizeof *D->ipc.peer, "halo plan",
                            (void **)&D->ipc.peer));
    memset(D->ipc.peer_base, 0, ((size_t)nn + 1) * sizeof *D->ipc.peer_base);
    memset(D->ipc.peer, 0, ((size_t)D->nsend + 1) * sizeof *D->ipc.peer);
    D->ipc.nnb = nn;
    int shared = mine < 0; /* a neighbour on this rank's GPU: its kernels and ours take turns */
    for (int q = 0; q < nn && lst == GS_OK; q++) {
        void *b = NULL;
        lst = arena_map_peer(be, nb[q], rc[q].handle, &b);
        if (lst == GS_OK) D->ipc.peer_base[q] = (char *)b + rc[q].at;
        if (rc[q].gpu < 0 || rc[q].gpu == mine) shared = 1;
    }
    for (int i = 0; i < D->nsend && lst == GS_OK; i++) {
        const ipc_card *c = &rc[rank_place(nb, nn, D->to[i])];
        if (c->halo < 0)
            lst = GS_ERR_INTERNAL; /* the neighbour's plan does not match */
        else
            D->ipc.peer[i] = (double *)D->ipc.peer_base[rank_place(nb, nn, D->to[i])] + c->halo;
    }
    if (prof_on()) {
        tp[3] = gs_time_now();
        if (gs_comm_rank() == 0)
            fprintf(stderr, "dist profile: IPC buffer %.3f ms, cards %.3f ms, %d mappings %.3f "
                    "ms\n", 1e3 * (tp[1] - tp[0]), 1e3 * (tp[2] - tp[1]), nn,
                    1e3 * (tp[3] - tp[2]));
    }
    int64_t bad[2] = {lst != GS_OK, shared || !device_signal_wanted(be)};
    GS_CHECK(gs_comm_max_i64(bad, 2));
    if (bad[0]) { /* staged halos instead, on every rank */
        ipc_release(D);
        gs_error_clear();
        goto done;
    }
    D->ipc.xh = (gs_vec){D->nhalo, D->ipc.buf, D->loc};
    if (!bad[1]) { /* where this rank's kernels write the neighbours' flags; one block at loc:
                    * done_at, ready_at, the counters (seq), dpeer, dsoff */
        const size_t ns = (size_t)D->nsend + 1, nr = (size_t)D->nrecv + 1, nc = SEQ_COUNT;
        const size_t nw = 3 * ns + nr + nc;
        GS_CHECK(gs_alloc_array(nw, sizeof *blk, "halo plan", (void **)&blk));
        memset(blk, 0, nw * sizeof *blk);
        uint64_t **done_at = (uint64_t **)blk, **ready_at = (uint64_t **)(blk + ns);
        for (int i = 0; i < D->nsend; i++) {
            const int q = rank_place(nb, nn, D->to[i]);
            done_at[i] = (uint64_t *)((char *)D->ipc.peer_base[q] + rc[q].done);
        }
        for (int i = 0; i < D->nrecv; i++) {
            const int q = rank_place(nb, nn, D->from[i]);
            ready_at[i] = (uint64_t *)((char *)D->ipc.peer_base[q] + rc[q].ready);
        }
        memcpy(blk + ns + nr + nc, D->ipc.peer, ns * sizeof *D->ipc.peer);
        memcpy(blk + 2 * ns + nr + nc, D->soff, ns * sizeof *D->soff);
        uint64_t *dblk = NULL;
        GS_CHECK(be->alloc(nw * sizeof *blk, "halo flags", (void **)&dblk));
        D->ipc.done_at = (uint64_t **)dblk;
        D->ipc.ready_at = (uint64_t **)(dblk + ns);
        D->ipc.seq = dblk + ns + nr;
        D->ipc.dpeer = (double **)(dblk + ns + nr + nc);
        D->ipc.dsoff = (int64_t *)(dblk + 2 * ns + nr + nc);
        GS_CHECK(be->put(dblk, blk, nw * sizeof *blk));
        D->ipc.dev_signal = 1;
        goto done;
    }
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof *D->ipc.zoff, "halo plan", (void **)&D->ipc.zoff));
    memset(D->ipc.zoff, 0, ((size_t)R + 1) * sizeof *D->ipc.zoff);
    GS_CHECK(gs_comm_exchange_create(D->nrecv, D->from, D->ipc.zoff, D->nsend, D->to, D->ipc.zoff,
                                     &D->ipc.ready));
    GS_CHECK(gs_comm_exchange_create(D->nsend, D->to, D->ipc.zoff, D->nrecv, D->from, D->ipc.zoff,
                                     &D->ipc.done));
    gs_comm_exchange_set_tag(D->ipc.ready, 8);
    gs_comm_exchange_set_tag(D->ipc.done, 9);
done:
    gs_free(sb);
    gs_free(rb);
    gs_free(nb);
    gs_free(sc);
    gs_free(rc);
    gs_free(zero);
    gs_free(blk);
    if (st != GS_OK) ipc_release(D);
    return st;
}

/* ---- rank to rank for arrays at a location: the receive windows */

/* what a rank tells a rank that sends to it: its receive window, the bytes of each of the
 * window's k regions (this rank's receive total) and where that sender's block starts in each */
typedef struct a2a_card {
    unsigned char handle[GS_IPC_HANDLE_BYTES];
    int64_t region, off;
} a2a_card;

/* The receive window, kept from one exchange to the next: made (cudaMalloc, its IPC handle) the
 * first time, grown (to twice, at least what is asked) when an exchange needs more, and mapped
 * by each sender once per window. A grown-out window and the senders' mappings of it stay until
 * gs_dist_peers_release: a window must not go while another rank has it mapped. (Made and
 * mapped anew at every exchange, as before, each cost 0.5-1.5 ms: the allocation, the free,
 * which waits for the device, and a mapping of 0.01-0.3 ms a neighbour.) */
#define A2A_MIN_BYTES ((size_t)16 << 20)
#define A2A_KEEP 64 /* windows and mappings kept until the release */
static struct {
    void *buf;
    size_t bytes;
    unsigned char handle[GS_IPC_HANDLE_BYTES];
    void *old[A2A_KEEP];              /* this rank's grown-out windows */
    int nold;
    int nr;                           /* ranks in peer[] */
    struct a2a_peer {                 /* a sender's mapping of rank r's current window */
        unsigned char handle[GS_IPC_HANDLE_BYTES];
        void *base;
    } *peer;
    void *stale[A2A_KEEP];            /* mappings of other ranks' grown-out windows */
    int nstale;
} g_win;

static void a2a_release(const gs_backend_ops *be)
{
    if (g_win.nr == 0) return; /* no exchange through IPC ran (the same on every rank) */
    for (int r = 0; r < g_win.nr; r++)
        if (g_win.peer[r].base) be->ipc_close(g_win.peer[r].base);
    for (int i = 0; i < g_win.nstale; i++) be->ipc_close(g_win.stale[i]);
    (void)gs_comm_barrier(); /* every mapping of this rank's windows closed before they go */
    gs_error_clear();
    for (int i = 0; i < g_win.nold; i++) be->ipc_free(g_win.old[i]);
    if (g_win.buf) be->ipc_free(g_win.buf);
    gs_free(g_win.peer);
    memset(&g_win, 0, sizeof g_win);
}

/* the senders' mappings, none yet (the first exchange, or gs_dist_peers_connect) */
static gs_status a2a_peers(void)
{
    gs_status st = GS_OK;
    const int R = gs_comm_size();
    if (g_win.peer) return GS_OK;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *g_win.peer, "rank to rank", (void **)&g_win.peer));
    memset(g_win.peer, 0, (size_t)R * sizeof *g_win.peer);
    g_win.nr = R;
done:
    return st;
}

/* this rank's window of at least `bytes` (a failure: lst set, nothing changed) */
static gs_status a2a_window(const gs_backend_ops *be, size_t bytes)
{
    gs_status lst = GS_OK;
    if (g_win.buf && g_win.bytes >= bytes) return GS_OK;
    if (g_win.buf && g_win.nold == A2A_KEEP) return GS_ERR_NOMEM; /* staged from here on */
    size_t want = g_win.bytes * 2 > bytes ? g_win.bytes * 2 : bytes;
    if (want < A2A_MIN_BYTES) want = A2A_MIN_BYTES;
    void *nb = NULL;
    unsigned char h[GS_IPC_HANDLE_BYTES];
    lst = be->ipc_alloc(want, &nb, h);
    if (lst != GS_OK) return lst;
    if (g_win.buf) g_win.old[g_win.nold++] = g_win.buf;
    g_win.buf = nb;
    g_win.bytes = want;
    memcpy(g_win.handle, h, sizeof h);
    return GS_OK;
}

/* rank r's window as its card names it, mapped here (once per window) */
static gs_status a2a_map(const gs_backend_ops *be, int r, const unsigned char *handle, void **base)
{
    gs_status lst = GS_OK;
    struct a2a_peer *p = &g_win.peer[r];
    if (p->base && memcmp(p->handle, handle, GS_IPC_HANDLE_BYTES) == 0) {
        *base = p->base;
        return GS_OK;
    }
    if (p->base && g_win.nstale == A2A_KEEP) return GS_ERR_NOMEM;
    void *b = NULL;
    lst = be->ipc_open(handle, &b);
    if (lst != GS_OK) return lst;
    if (p->base) g_win.stale[g_win.nstale++] = p->base;
    p->base = b;
    memcpy(p->handle, handle, GS_IPC_HANDLE_BYTES);
    *base = b;
    return GS_OK;
}

/* ---- the peers' devices, mapped once */

/* a small buffer of every other rank's, mapped here from the start to the end of the run (see
 * gs_dist_peers_connect) */
static struct {
    void *buf;   /* this rank's */
    void **peer; /* the others', mapped (NULL: this rank, or none) */
    int n;
    double seconds;
} g_peers;

void gs_dist_peers_release(gs_loc loc)
{
    const gs_backend_ops *be = gs_backend_get(loc);
    if (!be || loc == GS_LOC_HOST) return;
    a2a_release(be);
    arena_release(be);
    if (g_peers.n == 0) return; /* not connected (the same on every rank) */
    for (int r = 0; r < g_peers.n; r++)
        if (g_peers.peer[r]) be->ipc_close(g_peers.peer[r]);
    /* every mapping of this rank's buffer closed before it goes; every rank that tried to
     * connect comes here, also one whose buffer could not be made */
    (void)gs_comm_barrier();
    gs_error_clear();
    if (g_peers.buf) be->ipc_free(g_peers.buf);
    gs_free(g_peers.peer);
    g_peers.buf = NULL;
    g_peers.peer = NULL;
    g_peers.n = 0;
}

gs_status gs_dist_peers_connect(gs_loc loc)
{
    gs_status st = GS_OK, lst = GS_OK;
    const char *e = getenv("GSOLVE_IPC_CONNECT");
    const int R = gs_comm_size(), me = gs_comm_rank();
    unsigned char handle[3 * GS_IPC_HANDLE_BYTES], *sc = NULL, *rc = NULL;
    size_t *sb = NULL;
    if (g_peers.buf || !ipc_wanted_at(loc) || (e && strcmp(e, "0") == 0)) return GS_OK;
    const gs_backend_ops *be = gs_backend_get(loc);
    const double t0 = gs_time_now();
    memset(handle, 0, sizeof handle);
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sb, "peer mappings", (void **)&sb));
    GS_CHECK(gs_alloc_array((size_t)R * sizeof handle, 1, "peer mappings", (void **)&sc));
    GS_CHECK(gs_alloc_array((size_t)R * sizeof handle, 1, "peer mappings", (void **)&rc));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *g_peers.peer, "peer mappings",
                            (void **)&g_peers.peer));
    memset(g_peers.peer, 0, (size_t)R * sizeof *g_peers.peer);
    g_peers.n = R;
    GS_CHECK(a2a_peers());
    g_arena.used = 1;
    /* three handles to every other rank: this buffer, the first arena chunk (its operators'
     * halo buffers) and the first receive window of gs_dist_alltoallv_at */
    lst = be->ipc_alloc(256, &g_peers.buf, handle);
    if (lst == GS_OK) {
        void *p0 = NULL;
        int64_t at0 = 0;
        lst = arena_get(be, 1, &p0, handle + GS_IPC_HANDLE_BYTES, &at0);
        if (lst == GS_OK) arena_put(p0); /* the chunk stays, empty */
    }
    if (lst == GS_OK) lst = a2a_window(be, A2A_MIN_BYTES);
    if (lst == GS_OK) memcpy(handle + 2 * GS_IPC_HANDLE_BYTES, g_win.handle, GS_IPC_HANDLE_BYTES);
    for (int r = 0, q = 0; r < R; r++) {
        sb[r] = r != me ? sizeof handle : 0;
        if (r != me) memcpy(sc + (size_t)q++ * sizeof handle, handle, sizeof handle);
    }
    GS_CHECK(gs_comm_alltoallv(sc, sb, rc, sb));
    for (int r = 0, q = 0; r < R && lst == GS_OK; r++) {
        if (r == me) continue;
        const unsigned char *h = rc + (size_t)q++ * sizeof handle;
        void *b = NULL;
        lst = be->ipc_open(h, &g_peers.peer[r]);
        if (lst == GS_OK) lst = arena_map_peer(be, r, h + GS_IPC_HANDLE_BYTES, &b);
        if (lst == GS_OK) lst = a2a_map(be, r, h + 2 * GS_IPC_HANDLE_BYTES, &b);
    }
    int64_t bad = lst != GS_OK;
    GS_CHECK(gs_comm_max_i64(&bad, 1));
    if (bad) { /* the operators' own set-up decides, as without this */
        gs_error_clear();
        gs_dist_peers_release(loc);
    }
    g_peers.seconds = gs_time_now() - t0;
done:
    gs_free(sb);
    gs_free(sc);
    gs_free(rc);
    return st;
}

double gs_dist_peers_seconds(void) { return g_peers.buf ? g_peers.seconds : 0.0; }

/* ---- rank to rank for arrays at a location: the exchange */

/* through CUDA IPC; *fell_back = 1 (on every rank) when a window could not be made or mapped
 * somewhere, nothing received */
static gs_status a2a_ipc(gs_loc loc, int k, const void *const *send, const size_t *sb,
                         void *const *recv, const size_t *rb, const size_t *soff,
                         const size_t *roff, int *fell_back)
{
    gs_status st = GS_OK, lst = GS_OK;
    const gs_backend_ops *be = gs_backend_get(loc);
    const int R = gs_comm_size(), me = gs_comm_rank();
    const size_t total = roff[R];
    a2a_card *sc = NULL, *rc = NULL;
    size_t *cs = NULL, *cr = NULL;
    *fell_back = 0;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sc, "rank to rank", (void **)&sc));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rc, "rank to rank", (void **)&rc));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *cs, "rank to rank", (void **)&cs));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *cr, "rank to rank", (void **)&cr));
    GS_CHECK(a2a_peers());
    lst = a2a_window(be, total * (size_t)k + 8);
    int64_t bad = lst != GS_OK;
    GS_CHECK(gs_comm_max_i64(&bad, 1));
    if (bad) goto fall_back;
    /* a card to every rank that sends here (packed: the cards for ranks 0.. in order), one
     * from every rank this one sends to */
    size_t nc = 0;
    for (int r = 0; r < R; r++) {
        cs[r] = rb[r] > 0 && r != me ? sizeof(a2a_card) : 0;
        cr[r] = sb[r] > 0 && r != me ? sizeof(a2a_card) : 0;
        if (cs[r]) {
            memcpy(sc[nc].handle, g_win.handle, sizeof g_win.handle);
            sc[nc].region = (int64_t)total;
            sc[nc++].off = (int64_t)roff[r];
        }
    }
    GS_CHECK(gs_comm_alltoallv(sc, cs, rc, cr));
    GS_CHECK(be->sync()); /* the blocks to send are complete */
    for (int r = 0, q = 0; r < R && lst == GS_OK; r++) {
        void *base = NULL;
        if (!cr[r]) continue;
        if (rc[q].off < 0 || (size_t)rc[q].off + sb[r] > (size_t)rc[q].region)
            lst = GS_ERR_INTERNAL; /* the receiver expects other counts */
        else
            lst = a2a_map(be, r, rc[q].handle, &base);
        for (int j = 0; j < k && lst == GS_OK; j++)
            lst = be->peer_copy((char *)base + (size_t)j * (size_t)rc[q].region +
                                    (size_t)rc[q].off,
                                (const char *)send[j] + soff[r], sb[r]);
        q++;
    }
    if (lst == GS_OK) lst = be->peer_wait();
    bad = lst != GS_OK;
    GS_CHECK(gs_comm_max_i64(&bad, 1)); /* also: every rank's copies into this window are done */
    if (bad) goto fall_back;
    for (int j = 0; j < k; j++) {
        if (sb[me]) GS_CHECK(be->move((char *)recv[j] + roff[me], (const char *)send[j] + soff[me],
                                      sb[me]));
        for (int r = 0; r < R; r++)
            if (r != me && rb[r])
                GS_CHECK(be->move((char *)recv[j] + roff[r], (char *)g_win.buf +
                                  (size_t)j * total + roff[r], rb[r]));
    }
    GS_CHECK(be->sync()); /* emptied before the next exchange's cards let senders in */
    goto done;
fall_back:
    gs_error_clear();
    *fell_back = 1;
done:
    gs_free(sc);
    gs_free(rc);
    gs_free(cs);
    gs_free(cr);
    return st;
}

/* gs_dist_alltoallv_at, or with `all` gs_dist_allgatherv_at: the same block (sb[r] = its bytes,
 * soff[r] = 0) to every rank */
static gs_status exchange_at(gs_loc loc, int k, const void *const *send, const size_t *sb,
                             void *const *recv, const size_t *rb, int all)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(loc);
    const int R = gs_comm_size();
    size_t *soff = NULL, *roff = NULL;
    void *hs = NULL, *hr = NULL;
    int fell_back = 1;
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof *soff, "rank to rank", (void **)&soff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof *roff, "rank to rank", (void **)&roff));
    soff[0] = roff[0] = 0;
    for (int r = 0; r < R; r++)
        soff[r + 1] = all ? 0 : soff[r] + sb[r], roff[r + 1] = roff[r] + rb[r];
    const size_t sent = all ? sb[0] : soff[R]; /* the bytes of each send[j] */
    if (loc == GS_LOC_HOST || gs_comm_device_aware()) {
        for (int j = 0; j < k; j++)
            GS_CHECK(all ? gs_comm_allgatherv(send[j], sent, recv[j], rb)
                         : gs_comm_alltoallv(send[j], sb, recv[j], rb));
        goto done;
    }
    if (ipc_wanted_at(loc)) GS_CHECK(a2a_ipc(loc, k, send, sb, recv, rb, soff, roff, &fell_back));
    if (!fell_back) goto done;
    /* staged through host memory */
    GS_CHECK(gs_alloc_array(sent + 1, 1, "rank to rank", &hs));
    GS_CHECK(gs_alloc_array(roff[R] + 1, 1, "rank to rank", &hr));
    for (int j = 0; j < k; j++) {
        if (sent) GS_CHECK(be->get(hs, send[j], sent));
        GS_CHECK(all ? gs_comm_allgatherv(hs, sent, hr, rb) : gs_comm_alltoallv(hs, sb, hr, rb));
        if (roff[R]) GS_CHECK(be->put(recv[j], hr, roff[R]));
    }
done:
    gs_free(soff);
    gs_free(roff);
    gs_free(hs);
    gs_free(hr);
    return st;
}

gs_status gs_dist_alltoallv_at(gs_loc loc, int k, const void *const *send, const size_t *sb,
                               void *const *recv, const size_t *rb)
{
    return exchange_at(loc, k, send, sb, recv, rb, 0);
}

gs_status gs_dist_allgatherv_at(gs_loc loc, int k, const void *const *send, size_t bytes,
                                void *const *recv, const size_t *rb)
{
    gs_status st = GS_OK;
    size_t *sb = NULL;
    const int R = gs_comm_size();
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof *sb, "rank to rank", (void **)&sb));
    for (int r = 0; r < R; r++) sb[r] = bytes;
    GS_CHECK(exchange_at(loc, k, send, sb, recv, rb, 1));
done:
    gs_free(sb);
    return st;
}

/* who sends me which halo values, and which of mine each neighbour needs */
static gs_status plan_buffers(gs_dist_op *D, const gs_buf *idx);

/* Halo lists from this size up (the largest any rank sends or receives) go rank to rank where
 * the operator lives (gs_dist_alltoallv_at: through CUDA IPC on one node): host MPI between
 * ranks of one node moved 0.3 to 1 GB/s on the GPU machines, a 1 MB list (the halo of 16.8M
 * rows of 3D Poisson on each of 4 ranks) 3.9 ms, where the device's exchange takes a fraction
 * of a millisecond; smaller ones through host MPI, which starts sooner. */
#define PLAN_DEVICE_BYTES ((int64_t)256 << 10)

/* that size; GSOLVE_DIST_PLAN_BYTES=N sets it (0: every list where the operator lives) */
static int64_t plan_device_bytes(void)
{
    return gs_env_i64("GSOLVE_DIST_PLAN_BYTES", 0, PLAN_DEVICE_BYTES);
}

/* the halo lists (D->halo's runs, qs[r] bytes for rank r) to their owners; req: the nq lists
 * (qr[r] bytes from rank r) of this rank's columns the others need, on the host */
static gs_status halo_lists(const gs_dist_op *D, const size_t *qs, const size_t *qr, size_t nq,
                            int host_mpi, int64_t *req)
{
    gs_status st = GS_OK;
    int64_t big = (int64_t)(nq > (size_t)D->nhalo ? nq : (size_t)D->nhalo) * 8;
    int64_t *dh = NULL, *dq = NULL;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->loc != GS_LOC_HOST && !host_mpi) GS_CHECK(gs_comm_max_i64(&big, 1));
    if (D->loc == GS_LOC_HOST || host_mpi || big < plan_device_bytes()) {
        GS_CHECK(gs_comm_alltoallv(D->halo, qs, req, qr));
        goto done;
    }
    GS_CHECK(be->alloc(((size_t)D->nhalo + 1) * sizeof *dh, "halo plan", (void **)&dh));
    GS_CHECK(be->alloc((nq + 1) * sizeof *dq, "halo plan", (void **)&dq));
    if (D->nhalo > 0) GS_CHECK(be->put(dh, D->halo, (size_t)D->nhalo * sizeof *dh));
    {
        const void *snd[1] = {dh};
        void *rcv[1] = {dq};
        GS_CHECK(gs_dist_alltoallv_at(D->loc, 1, snd, qs, rcv, qr));
    }
    if (nq > 0) GS_CHECK(be->get(req, dq, nq * sizeof *dq));
done:
    if (dh) be->free(dh);
    if (dq) be->free(dq);
    return st;
}

/* the plan's lists on the host: the ranks this one receives from (D->from, D->roff) and sends
 * to (D->to, D->soff), *idx (gs_alloc_array) the own column of every value sent; host_mpi: the
 * halo lists through host MPI whatever their size (every rank alike). Collective. */
static gs_status plan_lists(gs_dist_op *D, const gs_part *cp, int host_mpi, int32_t **out)
{
    gs_status st = GS_OK;
    const int R = cp->nranks;
    size_t *qs = NULL, *qr = NULL;
    int64_t *req = NULL;
    int32_t *idx = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "halo plan", (void **)&qs));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "halo plan", (void **)&qr));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    memset(qs, 0, (size_t)R * sizeof *qs);
    D->roff[0] = 0;
    /* the halo ascending: each owner's columns are one run, found by a search a rank */
    for (int r = 0, h0 = 0; r < R && h0 < D->nhalo; r++) {
        int32_t lo = h0, hi = D->nhalo; /* the first halo column at or past rank r + 1's */
        while (lo < hi) {
            const int32_t mid = lo + (hi - lo) / 2;
            if (D->halo[mid] < cp->start[r + 1])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > h0) {
            D->from[D->nrecv] = r;
            D->nrecv++;
            D->roff[D->nrecv] = lo;
            qs[r] = (size_t)(lo - h0) * sizeof(int64_t);
        }
        h0 = lo;
    }
    double tq[4] = {prof_on() ? gs_time_now() : 0, 0, 0, 0};
    GS_CHECK(gs_comm_alltoall_sizes(qs, qr));
    if (prof_on()) tq[1] = gs_time_now();
    size_t nq = 0;
    for (int r = 0; r < R; r++) nq += qr[r] / sizeof(int64_t);
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int64_t), "halo plan", (void **)&req));
    GS_CHECK(halo_lists(D, qs, qr, nq, host_mpi, req));
    if (prof_on()) tq[2] = gs_time_now();
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int32_t), "halo plan", (void **)&idx));
    D->soff[0] = 0;
    for (int r = 0, q = 0; r < R; r++) {
        size_t k = qr[r] / sizeof(int64_t);
        if (!k) continue;
        D->to[D->nsend] = r;
        for (size_t j = 0; j < k; j++, q++) {
            int64_t i = req[q] - D->col0;
            if (i < 0 || i >= D->cols)
                GS_FAIL(GS_ERR_INTERNAL, "halo plan: column %lld asked of the rank that holds "
                        "%lld..%lld", (long long)req[q], (long long)D->col0,
                        (long long)(D->col0 + D->cols - 1));
            idx[q] = (int32_t)i;
        }
        D->nsend++;
        D->soff[D->nsend] = q;
    }
    *out = idx;
    idx = NULL;
    if (prof_on() && gs_comm_rank() == 0) {
        tq[3] = gs_time_now();
        fprintf(stderr, "dist profile: halo plan of %d halo columns: sizes %.3f ms (with the "
                "wait for the others), lists %.3f ms%s, indices %.3f ms\n", D->nhalo,
                1e3 * (tq[1] - tq[0]), 1e3 * (tq[2] - tq[1]),
                host_mpi ? " (host MPI, while the rows travel)" : "", 1e3 * (tq[3] - tq[2]));
    }
done:
    gs_free(qs);
    gs_free(qr);
    gs_free(req);
    gs_free(idx);
    return st;
}

/* the plan's buffers from its lists (idx: plan_lists's, taken over) */
static gs_status plan_finish(gs_dist_op *D, int32_t **idx)
{
    const gs_buf hidx = {*idx, D->soff[D->nsend], GS_I32, GS_LOC_HOST};
    gs_status st = plan_buffers(D, &hidx);
    gs_free(*idx);
    *idx = NULL;
    return st;
}

/* like's plan (the same halo) copied: no messages */
static gs_status plan_like(gs_dist_op *D, const gs_dist_op *like)
{
    gs_status st = GS_OK;
    const int R = gs_comm_size();
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    D->nsend = like->nsend;
    D->nrecv = like->nrecv;
    memcpy(D->to, like->to, (size_t)like->nsend * sizeof(int));
    memcpy(D->from, like->from, (size_t)like->nrecv * sizeof(int));
    memcpy(D->soff, like->soff, ((size_t)like->nsend + 1) * sizeof(int64_t));
    memcpy(D->roff, like->roff, ((size_t)like->nrecv + 1) * sizeof(int64_t));
    GS_CHECK(plan_buffers(D, like->sidx));
done:
    return st;
}

static gs_status staging(const gs_dist_op *Dc, int *staged);

/* the send indices (idx, own columns) and buffers where x lives, the exchange of the plan's
 * lists, and the MPI staging buffers where the halos will not go through CUDA IPC */
static gs_status plan_buffers(gs_dist_op *D, const gs_buf *idx)
{
    gs_status st = GS_OK;
    const int64_t ns = D->soff[D->nsend];
    int staged = 0;
    GS_CHECK(gs_buf_clone(idx, D->loc, "halo send indices", &D->sidx));
    const gs_backend_ops *be = gs_backend_get(D->loc);
    GS_CHECK(be->alloc((size_t)(ns + 1) * sizeof(double), "halo send values", (void **)&D->sdev));
    GS_CHECK(gs_vec_create(D->nhalo, D->loc, &D->xh));
    GS_CHECK(gs_comm_exchange_create(D->nsend, D->to, D->soff, D->nrecv, D->from, D->roff,
                                     &D->ex));
    if (!ipc_wanted(D)) GS_CHECK(staging(D, &staged));
done:
    return st;
}

gs_status gs_dist_op_use_ipc(gs_dist_op *D)
{
    if (!D || D->ipc.buf || !ipc_wanted(D)) return GS_OK;
    const double t0 = prof_on() ? gs_time_now() : 0;
    gs_status st = ipc_setup(D);
    if (prof_on() && gs_comm_rank() == 0)
        fprintf(stderr, "dist profile: IPC set-up of a %d x %d operator: %.3f ms\n", D->rows,
                D->cols, 1e3 * (gs_time_now() - t0));
    return st;
}

static const gs_dist_ops *dist_ops(gs_loc loc)
{
    return (const gs_dist_ops *)gs_backend_module(loc, GS_MODULE_DIST);
}

/* the diagonal block's operator: the selector's format, or gsolve's CSR kernel */
static gs_status diag_spmat(gs_dist_op *D, const gs_select_request *rq, int level)
{
    gs_status st = GS_OK;
    if (rq) {
        GS_CHECK(gs_select_spmat(D->diag, level, rq, &D->Md, &D->sel));
    } else {
        GS_CHECK(gs_spmat_create(D->diag, GS_FORMAT_CSR, NULL, &D->Md));
        D->sel.format = GS_FORMAT_CSR;
        gs_str_copy(D->sel.reason, sizeof D->sel.reason, "gsolve's CSR kernel");
    }
    D->view = *D->Md;
    D->view.dist = D;
    D->view.dist_spmv = dist_spmv;
done:
    return st;
}

/* a new operator of *halo (taken over, also on failure), its rows and columns still to come */
static gs_status op_new(int64_t **halo, int32_t nhalo, int64_t row0, int64_t col0, int32_t cols,
                        gs_loc loc, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_dist_op *D = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *D, "distributed operator", (void **)&D));
    memset(D, 0, sizeof *D);
    D->loc = loc;
    D->halo = *halo;
    *halo = NULL;
    D->nhalo = nhalo;
    D->row0 = row0;
    D->col0 = col0;
    D->cols = cols;
    *out = D;
done:
    gs_free(*halo);
    *halo = NULL;
    return st;
}

/* D (op_new's, taken over: *out on success, destroyed on failure) made from its rows *C (taken
 * over): its blocks (unless upload_split made them), its plan (the buffers of *idx, the lists
 * plan_lists made ahead, when given; else worked out with the ranks), its SpMV form */
static gs_status op_build(gs_dist_op *D, gs_csr **C, const gs_part *cp, int32_t **idx,
                          const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    const gs_loc loc = D->loc;
    const gs_dist_ops *ops = dist_ops(loc);
    *out = NULL;
    if (!ops) GS_FAIL(GS_ERR_INTERNAL, "distributed operator: no backend at this location");
    D->compact = *C;
    *C = NULL;
    D->rows = D->compact->rows;
    double tp[4] = {0, 0, 0, 0};
    /* the work queued before (the product that made these rows) drained first, so the split's
     * time is its own */
    if (prof_on()) (void)gs_backend_get(loc)->sync(), tp[0] = gs_time_now();
    /* offd: the rows with halo entries alone, a product touches only them (split already when
     * the rows came from the host: gs_dist_op_create_compact) */
    if (!D->diag)
        GS_CHECK(ops->split(D->compact, D->cols, D->nhalo, &D->diag, &D->offd, &D->nor,
                            &D->orow));
    if (prof_on()) (void)gs_backend_get(loc)->sync(), tp[1] = gs_time_now();
    if (idx && *idx) {
        GS_CHECK(plan_finish(D, idx));
    } else {
        int32_t *own = NULL;
        GS_CHECK(plan_lists(D, cp, 0, &own));
        GS_CHECK(plan_finish(D, &own));
    }
    if (prof_on()) (void)gs_backend_get(loc)->sync(), tp[2] = gs_time_now();
    GS_CHECK(diag_spmat(D, rq, level));
    if (prof_on()) {
        (void)gs_backend_get(loc)->sync(), tp[3] = gs_time_now();
        if (me == 0)
            fprintf(stderr, "dist profile: level %d %d x %d operator: split %.3f ms, plan %.3f "
                    "ms%s, format %.3f ms\n", level, D->rows, D->cols, 1e3 * (tp[1] - tp[0]),
                    1e3 * (tp[2] - tp[1]),
                    idx ? " (its lists made ahead)" : "",
                    1e3 * (tp[3] - tp[2]));
    }
    D->view.nnz = D->compact->nnz;
    D->view.cols = D->cols;
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(C);
    if (idx) {
        gs_free(*idx);
        *idx = NULL;
    }
    gs_dist_op_destroy(&D);
    return st;
}

gs_status gs_dist_op_from_compact(gs_csr **C, int64_t **halo, int32_t nhalo, int64_t row0,
                                  const gs_part *cp, gs_loc loc, const gs_select_request *rq,
                                  int level, gs_dist_op **out)
{
    const int me = gs_comm_rank();
    gs_dist_op *D = NULL;
    *out = NULL;
    gs_status st = op_new(halo, nhalo, row0, cp->start[me],
                          (int32_t)(cp->start[me + 1] - cp->start[me]), loc, &D);
    if (st != GS_OK) {
        gs_csr_destroy(C);
        return st;
    }
    return op_build(D, C, cp, NULL, rq, level, out);
}

gs_status gs_dist_op_whole_like(gs_csr **C, const gs_dist_op *like, gs_dist_op **out)
{
    gs_status st = GS_OK;
    int64_t *h = NULL;
    gs_dist_op *D = NULL;
    *out = NULL;
    if (like->reverse || !*C || (*C)->rows != like->rows ||
        (*C)->cols != like->cols + like->nhalo || (*C)->loc != like->loc) {
        gs_csr_destroy(C);
        GS_FAIL(GS_ERR_INTERNAL, "distributed operator: rows that do not match the operator "
                "whose plan they take");
    }
    GS_CHECK(gs_dist_copy_i64(like->halo, like->nhalo, &h));
    GS_CHECK(op_new(&h, like->nhalo, like->row0, like->col0, like->cols, like->loc, &D));
    /* all its rows as a prefix: its arrays, with the state a product needs (rows an AMG step
     * made on the device are bare arrays) */
    GS_CHECK(dist_ops(D->loc)->row_prefix(C, (*C)->rows, &D->compact));
    D->rows = D->compact->rows;
    D->whole = 1;
    GS_CHECK(plan_like(D, like));
    GS_CHECK(gs_spmat_create(D->compact, GS_FORMAT_CSR, NULL, &D->Md));
    D->sel.format = GS_FORMAT_CSR;
    gs_str_copy(D->sel.reason, sizeof D->sel.reason,
                "the compact rows in one product, after the halo");
    D->view = *D->Md;
    D->view.dist = D;
    D->view.dist_spmv = dist_spmv;
    D->view.cols = D->cols;
    GS_CHECK(gs_vec_create((int64_t)D->cols + D->nhalo, D->loc, &D->ext));
    if (like->ipc.buf) { /* the same halo: like's IPC buffers, mappings and signals */
        D->ipc_borrowed = 1;
        D->ipc = like->ipc;
    }
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(C);
    gs_free(h);
    gs_dist_op_destroy(&D);
    return st;
}

/* GSOLVE_DIST_PROFILE=1: every operator's products timed (waiting for the device each time) and
 * listed on rank 0's stderr when it is destroyed */

int gs_dist_op_graph_safe(const gs_dist_op *D) { return D && D->ipc.dev_signal && !prof_on(); }

/* The halo lists go through host MPI while the rows travel to the device when every rank's list
 * takes at most this share of its rows' bytes: host MPI between the ranks of a node moves 0.3
 * to 1 GB/s, the upload 40-55 GB/s a GPU, so such a list is exchanged before the rows have
 * arrived (the level-0 plan of 3D Poisson at 16.8M rows a rank: 1 MB against 1.4 GB). */
#define PLAN_AHEAD_SHARE 64

/* the plan's lists while the rows travel (gs_csr_upload_while) */
typedef struct {
    gs_dist_op *D;
    const gs_part *cp;
    int32_t *idx;
} plan_ahead;

static gs_status plan_ahead_run(void *arg)
{
    plan_ahead *a = (plan_ahead *)arg;
    return plan_lists(a->D, a->cp, 1, &a->idx);
}

gs_status gs_dist_op_create_compact(const gs_csr *C, const int64_t *halo, int32_t nhalo,
                                    int64_t row0, const gs_part *cp, gs_loc loc,
                                    const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_csr *Cl = NULL;
    int64_t *h = NULL;
    gs_dist_op *D = NULL;
    plan_ahead a = {NULL, cp, NULL};
    const int me = gs_comm_rank();
    const double t0 = prof_on() ? gs_time_now() : 0;
    *out = NULL;
    if (C->loc != GS_LOC_HOST)
        GS_FAIL(GS_ERR_INTERNAL, "distributed operator: the compact rows are not on the host");
    GS_CHECK(gs_dist_copy_i64(halo, nhalo, &h));
    GS_CHECK(op_new(&h, nhalo, row0, cp->start[me], (int32_t)(cp->start[me + 1] - cp->start[me]),
                    loc, &D)); /* h taken over, also on failure */
    /* every rank alike: the lists ahead where each rank's are small next to its rows */
    int64_t ahead = loc != GS_LOC_HOST &&
                    (int64_t)nhalo * 8 * PLAN_AHEAD_SHARE <= (int64_t)C->nnz * 12;
    if (loc != GS_LOC_HOST) GS_CHECK(gs_comm_min_i64(&ahead, 1));
    a.D = D;
    if (!dist_ops(loc))
        GS_FAIL(GS_ERR_INTERNAL, "distributed operator: no backend at this location");
    /* the rows to loc and split there, the lists made meanwhile */
    GS_CHECK(dist_ops(loc)->upload_split(C, D->cols, nhalo, ahead ? plan_ahead_run : NULL, &a, &Cl,
                                         &D->diag, &D->offd, &D->nor, &D->orow));
    if (prof_on() && me == 0) {
        GS_CHECK(gs_backend_get(loc)->sync());
        fprintf(stderr, "dist profile: level %d compact rows: upload and split %.3f ms%s\n",
                level, 1e3 * (gs_time_now() - t0),
                ahead ? " (the halo plan's lists meanwhile)" : "");
    }
    st = op_build(D, &Cl, cp, ahead ? &a.idx : NULL, rq, level, out);
    D = NULL; /* op_build's */
done:
    gs_csr_destroy(&Cl);
    gs_free(a.idx);
    gs_dist_op_destroy(&D);
    return st;
}

gs_status gs_dist_compact_host(const gs_gcsr *A, const gs_part *cp, gs_csr **C, int64_t **halo,
                               int32_t *nhalo)
{
    const int me = gs_comm_rank();
    const int64_t col0 = cp->start[me];
    return gs_dist_host_ops.compact(A->rows, A->rowptr, A->col, A->val, col0,
                                    (int32_t)(cp->start[me + 1] - col0), C, halo, nhalo);
}

gs_status gs_dist_op_create(const gs_gcsr *A, const gs_part *cp, gs_loc loc,
                            const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_csr *C = NULL;
    int64_t *halo = NULL;
    int32_t nhalo = 0;
    GS_CHECK(gs_dist_compact_host(A, cp, &C, &halo, &nhalo));
    GS_CHECK(gs_dist_op_create_compact(C, halo, nhalo, A->row0, cp, loc, rq, level, out));
done:
    gs_csr_destroy(&C);
    gs_free(halo);
    return st;
}

gs_status gs_dist_op_transpose(const gs_dist_op *P, const gs_select_request *rq, int level,
                               gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_dist_op *D = NULL;
    gs_csr *Pt = NULL;
    int32_t nnz = 0;
    const gs_dist_ops *ops = dist_ops(P->loc);
    const gs_backend_ops *be = gs_backend_get(P->loc);
    const int R = gs_comm_size();
    GS_CHECK(gs_alloc_array(1, sizeof *D, "distributed operator", (void **)&D));
    memset(D, 0, sizeof *D);
    D->loc = P->loc;
    D->reverse = 1;
    D->rows = P->cols;
    D->cols = P->rows;
    D->row0 = P->col0;
    D->col0 = P->row0;
    GS_CHECK(gs_spgemm_transpose(P->compact, &Pt));
    if (P->nhalo > 0) { /* the rows of the halo's columns: a copy of their own */
        GS_CHECK(ops->row_slice(Pt, P->cols, P->cols + P->nhalo, &D->rem));
        GS_CHECK(gs_spmat_create(D->rem, GS_FORMAT_CSR, NULL, &D->Mr));
        GS_CHECK(gs_vec_create(P->nhalo, D->loc, &D->tr));
    }
    nnz = Pt->nnz;
    /* the own columns' rows come first: P^T's arrays themselves (a copy of them was P^T's
     * size again, 1.7 GB for 256 x 512 x 512 on each of 4 ranks) */
    GS_CHECK(ops->row_prefix(&Pt, P->cols, &D->diag));
    /* P's plan backwards: what P receives (its halo, grouped by owner) R sends, and what P sends
     * (its own columns the neighbours ask for) R receives and adds in */
    D->nsend = P->nrecv;
    D->nrecv = P->nsend;
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    memcpy(D->to, P->from, (size_t)P->nrecv * sizeof(int));
    memcpy(D->from, P->to, (size_t)P->nsend * sizeof(int));
    memcpy(D->soff, P->roff, ((size_t)P->nrecv + 1) * sizeof(int64_t));
    memcpy(D->roff, P->soff, ((size_t)P->nsend + 1) * sizeof(int64_t));
    const int64_t nr = D->roff[D->nrecv];
    GS_CHECK(gs_buf_clone(P->sidx, D->loc, "halo add indices", &D->sidx));
    GS_CHECK(be->alloc((size_t)(nr + 1) * sizeof(double), "halo received values",
                       (void **)&D->sdev));
    GS_CHECK(gs_comm_exchange_create(D->nsend, D->to, D->soff, D->nrecv, D->from, D->roff,
                                     &D->ex));
    if (!ipc_wanted(D)) {
        int staged = 0;
        GS_CHECK(staging(D, &staged));
    }
    GS_CHECK(diag_spmat(D, rq, level));
    D->view.nnz = nnz;
    D->view.cols = D->cols;
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(&Pt);
    gs_dist_op_destroy(&D);
    return st;
}

void gs_dist_op_destroy(gs_dist_op **Dp)
{
    if (!Dp || !*Dp) return;
    gs_dist_op *D = *Dp;
    if (D->prof_n > 0 && gs_comm_rank() == 0)
        fprintf(stderr, "dist profile: %s %d x %d (+%d halo): %ld products, %.3f ms, %.1f us each\n",
                D->reverse ? "transpose" : "operator", D->rows, D->cols, D->nhalo, D->prof_n,
                1e3 * D->prof_s, 1e6 * D->prof_s / (double)D->prof_n);
    gs_spmat_destroy(&D->Md);
    gs_spmat_destroy(&D->Mr);
    gs_csr_destroy(&D->rem);
    gs_vec_destroy(&D->tr);
    gs_csr_destroy(&D->diag);
    gs_csr_destroy(&D->offd);
    if (D->orow) gs_backend_get(D->loc)->free(D->orow);
    gs_csr_destroy(&D->compact);
    gs_free(D->halo);
    gs_free(D->to);
    gs_free(D->from);
    gs_free(D->soff);
    gs_free(D->roff);
    gs_buf_destroy(&D->sidx);
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->sdev && be) be->free(D->sdev);
    gs_free(D->shost);
    gs_free(D->rhost);
    gs_vec_destroy(&D->xh);
    gs_vec_destroy(&D->ext);
    gs_comm_exchange_destroy(&D->ex);
    ipc_release(D);
    gs_free(D);
    *Dp = NULL;
}

/* with device signals: the values src[idx[e]] (src[e] without idx) copied by one kernel on the
 * copy stream (see ipc_exchange), and y = M x on the stream; nothing waited for. The copy
 * stream reads src until the stream joins it (ipc_finish, or after the off-diagonal product). */
static gs_status ipc_send(const gs_dist_op *D, const double *src, const int32_t *idx,
                          const gs_spmat *M, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->nsend > 0) {
        GS_CHECK(be->peer_fork());
        GS_CHECK(be->halo_send(D->nsend, D->ipc.dpeer, D->ipc.dsoff, D->soff[D->nsend], src, idx,
                               D->ipc.flags + D->nrecv, D->ipc.done_at, D->ipc.seq + SEQ_SENT,
                               (unsigned *)(D->ipc.seq + SEQ_SEND_TICKET)));
    }
    if (M) GS_CHECK(gs_spmat_spmv(M, x, y));
done:
    return st;
}

/* the exchange through IPC: the values to send (src[idx[e]], or src[e] without idx, e in
 * D->soff's blocks; at loc) copied into the neighbours' buffers while y = M x runs; on return
 * what this rank received may be read (at loc, in stream order).
 *  - Device signals: this is product k of the operator (its count of products sent, at loc,
 *    plus one); one kernel on the copy stream waits until each neighbour it writes to has said
 *    "ready" for k - 1, gathers and copies, and writes "done" k into that neighbour's flag; the
 *    stream runs y = M x and waits until every neighbour that writes here has said "done" k.
 *    Nothing waits on the host, and a CUDA graph can record it. ipc_finish says "ready" k
 *    once the received values are used.
 *  - MPI handshakes: the values gathered into D->sdev and the stream drained (send complete,
 *    and this rank's buffer no longer read by the last product), "ready" to the ranks that
 *    write here and from those this rank writes to, y = M x launched to run meanwhile, the
 *    copies, then "done" both ways. */
static gs_status ipc_exchange(const gs_dist_op *D, const double *src, const int32_t *idx,
                              const gs_spmat *M, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const double *send = src;
    if (D->ipc.dev_signal) {
        GS_CHECK(ipc_send(D, src, idx, M, x, y));
        GS_CHECK(be->flag_wait(D->nrecv, D->ipc.flags, D->ipc.seq + SEQ_DONE, 1));
        goto done;
    }
    if (idx && D->soff[D->nsend] > 0) {
        GS_CHECK(be->gather(D->soff[D->nsend], idx, src, D->sdev));
        send = D->sdev;
    }
    GS_CHECK(be->sync()); /* this rank's own work: not communication */
    GS_CHECK(gs_comm_exchange_begin(D->ipc.ready, NULL, NULL));
    if (M) GS_CHECK(gs_spmat_spmv(M, x, y));
    GS_CHECK(gs_comm_exchange_end(D->ipc.ready));
    double t1 = gs_time_now();
    for (int i = 0; i < D->nsend; i++)
        GS_CHECK(be->peer_copy(D->ipc.peer[i], send + D->soff[i],
                               (size_t)(D->soff[i + 1] - D->soff[i]) * sizeof(double)));
    GS_CHECK(be->peer_wait());
    gs_comm_add_seconds(gs_time_now() - t1);
    GS_CHECK(gs_comm_exchange_begin(D->ipc.done, NULL, NULL));
    GS_CHECK(gs_comm_exchange_end(D->ipc.done));
done:
    return st;
}

/* the received values used (in stream order): with device signals "ready" k to the ranks that
 * write here (and product k counted done), and the stream after the copies (what they read is
 * free again) */
static gs_status ipc_finish(const gs_dist_op *D)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (!D->ipc.dev_signal) return GS_OK;
    GS_CHECK(be->flag_signal(D->nrecv, D->ipc.ready_at, D->ipc.seq + SEQ_DONE));
    if (D->nsend > 0) GS_CHECK(be->peer_join());
done:
    return st;
}

/* y += A_offd xh: the product over the rows with halo entries, added into those rows */
static gs_status add_offd(const gs_dist_op *D, const gs_vec *xh, gs_vec *y)
{
    return dist_ops(D->loc)->offd_add(D->offd, D->orow, xh->data, y->data, NULL);
}

/* y = A x with the halo copied device to device (the values to send gathered from x by the
 * copy); with device signals the wait for the halo, the off-diagonal product, "ready" and the
 * product's count are one kernel */
static gs_status ipc_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const int32_t *idx = D->sidx->data;
    if (D->ipc.dev_signal && D->nhalo > 0) {
        const gs_halo_signals sg = {.nwait = D->nrecv,
                                    .nready = D->nrecv,
                                    .flags = D->ipc.flags,
                                    .ready_at = D->ipc.ready_at,
                                    .ctr = D->ipc.seq + SEQ_DONE,
                                    .ticket = (unsigned *)(D->ipc.seq + SEQ_OFFD_TICKET)};
        GS_CHECK(ipc_send(D, x->data, idx, D->Md, x, y));
        GS_CHECK(dist_ops(D->loc)->offd_add(D->offd, D->orow, D->ipc.xh.data, y->data, &sg));
        if (D->nsend > 0) GS_CHECK(gs_backend_get(D->loc)->peer_join());
        goto done;
    }
    GS_CHECK(ipc_exchange(D, x->data, idx, D->Md, x, y));
    if (D->nhalo > 0) {
        GS_CHECK(add_offd(D, &D->ipc.xh, y));
    }
    GS_CHECK(ipc_finish(D));
done:
    return st;
}

/* y += what a transpose's neighbours sent (recv: D->roff's blocks at loc), added at the own
 * rows P's plan named, one neighbour at a time: the indices of one are distinct */
static gs_status add_received(const gs_dist_op *D, const double *recv, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_dist_ops *ops = dist_ops(D->loc);
    const int32_t *idx = D->sidx->data;
    for (int i = 0; i < D->nrecv; i++)
        if (D->roff[i + 1] > D->roff[i])
            GS_CHECK(ops->scatter_add(D->roff[i + 1] - D->roff[i], idx + D->roff[i],
                                      recv + D->roff[i], y->data));
done:
    return st;
}

/* *staged = 1 where the MPI exchanges go through page-locked host buffers (a device backend,
 * MPI without device memory); those buffers made here once (the sends, then the receives): when
 * the operator is made where its halos will not go through CUDA IPC, else at its first staged
 * exchange (CUDA IPC refused on some rank), so an operator on CUDA IPC never pins them */
static gs_status staging(const gs_dist_op *Dc, int *staged)
{
    gs_status st = GS_OK;
    gs_dist_op *D = (gs_dist_op *)Dc;
    *staged = D->loc != GS_LOC_HOST && !gs_comm_device_aware();
    if (!*staged || D->shost) return GS_OK;
    GS_CHECK(gs_alloc_pinned((size_t)D->soff[D->nsend] + 1, sizeof(double), "halo staging",
                             (void **)&D->shost));
    st = gs_alloc_pinned((size_t)D->roff[D->nrecv] + 1, sizeof(double), "halo staging",
                         (void **)&D->rhost);
    if (st != GS_OK) { /* both or neither */
        gs_free(D->shost);
        D->shost = NULL;
    }
done:
    return st;
}

/* y = R x for a transpose: the rows other ranks own first (their values sent on), the own rows
 * while they travel, then what the neighbours sent added in */
static gs_status reverse_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    int staged = 0;
    const int64_t nt = D->tr ? D->tr->n : 0, nr = D->roff[D->nrecv];
    if (D->ipc.buf) { /* the other ranks' rows copied straight into their owners' buffers */
        if (nt > 0) GS_CHECK(gs_spmat_spmv(D->Mr, x, D->tr));
        GS_CHECK(ipc_exchange(D, nt > 0 ? D->tr->data : D->sdev, NULL, D->Md, x, y));
        GS_CHECK(add_received(D, D->ipc.buf, y));
        GS_CHECK(ipc_finish(D));
        goto done;
    }
    GS_CHECK(staging(D, &staged));
    if (nt > 0) {
        GS_CHECK(gs_spmat_spmv(D->Mr, x, D->tr));
        if (staged) {
            double t0 = gs_time_now();
            GS_CHECK(be->get(D->shost, D->tr->data, (size_t)nt * sizeof(double)));
            gs_comm_add_seconds(gs_time_now() - t0);
        }
    }
    GS_CHECK(gs_comm_exchange_begin(D->ex, staged ? D->shost : (nt ? D->tr->data : D->sdev),
                                    staged ? D->rhost : D->sdev));
    GS_CHECK(gs_spmat_spmv(D->Md, x, y));
    GS_CHECK(gs_comm_exchange_end(D->ex));
    if (nr > 0) {
        if (staged) {
            double t1 = gs_time_now();
            GS_CHECK(be->put(D->sdev, D->rhost, (size_t)nr * sizeof(double)));
            gs_comm_add_seconds(gs_time_now() - t1);
        }
        GS_CHECK(add_received(D, D->sdev, y));
    }
done:
    return st;
}

/* the values the neighbours need gathered and sent, the halo's receives posted */
static gs_status halo_begin(const gs_dist_op *D, const double *x, double *xh)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const int64_t ns = D->soff[D->nsend];
    int staged = 0;
    GS_CHECK(staging(D, &staged));
    double t0 = gs_time_now();
    if (ns > 0) GS_CHECK(be->gather(ns, D->sidx->data, x, D->sdev));
    if (staged && ns > 0) GS_CHECK(be->get(D->shost, D->sdev, (size_t)ns * sizeof(double)));
    gs_comm_add_seconds(gs_time_now() - t0);
    GS_CHECK(gs_comm_exchange_begin(D->ex, staged ? D->shost : D->sdev, staged ? D->rhost : xh));
done:
    return st;
}

static gs_status halo_end(const gs_dist_op *D, double *xh)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_comm_exchange_end(D->ex));
    if (D->nhalo > 0 && D->shost) {
        double t1 = gs_time_now();
        GS_CHECK(gs_backend_get(D->loc)->put(xh, D->rhost, (size_t)D->nhalo * sizeof(double)));
        gs_comm_add_seconds(gs_time_now() - t1);
    }
done:
    return st;
}

gs_status gs_dist_op_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    double tp0 = 0;
    if (prof_on()) {
        gs_backend_get(D->loc)->sync();
        tp0 = gs_time_now();
    }
    if (x->n != D->cols || y->n != D->rows || x->loc != D->loc || y->loc != D->loc)
        GS_FAIL(GS_ERR_ARG, "distributed spmv: vector sizes or locations do not match");
    if (D->reverse) {
        GS_CHECK(reverse_spmv(D, x, y));
        goto done;
    }
    if (D->whole) { /* x and its halo side by side, then the compact rows' product */
        GS_CHECK(gs_backend_get(D->loc)->move(D->ext->data, x->data,
                                              (size_t)D->cols * sizeof(double)));
        GS_CHECK(gs_dist_op_halo(D, x->data, D->ext->data + D->cols));
        GS_CHECK(gs_spmat_spmv(D->Md, D->ext, y));
        goto done;
    }
    if (D->ipc.buf) {
        GS_CHECK(ipc_spmv(D, x, y));
        goto done;
    }
    GS_CHECK(halo_begin(D, x->data, D->xh->data));
    GS_CHECK(gs_spmat_spmv(D->Md, x, y)); /* runs while the messages travel */
    GS_CHECK(halo_end(D, D->xh->data));
    if (D->nhalo > 0) {
        GS_CHECK(add_offd(D, D->xh, y));
    }
done:
    if (prof_on()) {
        gs_backend_get(D->loc)->sync();
        ((gs_dist_op *)D)->prof_s += gs_time_now() - tp0;
        ((gs_dist_op *)D)->prof_n++;
    }
    if (st != GS_OK) gs_comm_abort(st); /* the neighbours wait for this rank: end them all */
    return st;
}

gs_status gs_dist_op_halo(const gs_dist_op *D, const double *x, double *xh)
{
    gs_status st = GS_OK;
    if (D->ipc.buf && !D->reverse) { /* the products' IPC exchange, without a product */
        const gs_backend_ops *be = gs_backend_get(D->loc);
        GS_CHECK(ipc_exchange(D, x, D->sidx->data, NULL, NULL, NULL));
        if (D->nhalo > 0) GS_CHECK(be->move(xh, D->ipc.buf, (size_t)D->nhalo * sizeof(double)));
        GS_CHECK(ipc_finish(D));
        goto done;
    }
    GS_CHECK(halo_begin(D, x, xh));
    GS_CHECK(halo_end(D, xh));
done:
    return st;
}

/* bytes[rank[i]] = the int64 entries of the items blocks[i] .. blocks[i + 1] - 1 (by their
 * offsets off, at loc: read one bound at a time), i < n */
static gs_status block_bytes(const gs_backend_ops *be, const int64_t *off, int n,
                             const int64_t *blocks, const int *rank, size_t *bytes)
{
    gs_status st = GS_OK;
    int64_t lo, hi;
    for (int i = 0; i < n; i++) {
        GS_CHECK(be->get(&lo, off + blocks[i], sizeof lo));
        GS_CHECK(be->get(&hi, off + blocks[i + 1], sizeof hi));
        bytes[rank[i]] = (size_t)(hi - lo) * sizeof(int64_t);
    }
done:
    return st;
}

gs_status gs_dist_op_fetch_rows(const gs_dist_op *D, const gs_csr *M, int64_t base, int32_t nown,
                                const int64_t *gmap, int64_t **rowptr, int64_t *nent,
                                int64_t **gcol, double **val)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const gs_dist_ops *ops = dist_ops(D->loc);
    const int R = gs_comm_size();
    const int64_t ns = D->soff[D->nsend], nh = D->nhalo;
    int32_t *len = NULL;
    int64_t *off = NULL, *dg = NULL, *rp = NULL, *rg = NULL, ne = 0, nr = 0;
    double *dv = NULL, *rv = NULL;
    gs_vec *x = NULL;
    size_t *sb = NULL, *rb = NULL;
    *rowptr = NULL, *nent = 0, *gcol = NULL, *val = NULL;
    if (M->rows != D->cols)
        GS_FAIL(GS_ERR_INTERNAL, "row fetch: %d rows, the operator has %d columns", M->rows,
                D->cols);
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sb, "row fetch", (void **)&sb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rb, "row fetch", (void **)&rb));
    memset(sb, 0, (size_t)R * sizeof *sb);
    memset(rb, 0, (size_t)R * sizeof *rb);
    /* the rows asked for, packed with global columns where the matrices live; the host reads
     * only each neighbour's block bounds */
    GS_CHECK(be->alloc(((size_t)ns + 1) * sizeof *len, "row fetch", (void **)&len));
    GS_CHECK(be->alloc(((size_t)ns + 1) * sizeof *off, "row fetch", (void **)&off));
    if (ns > 0) GS_CHECK(ops->row_lengths(M, ns, D->sidx->data, len));
    GS_CHECK(ops->offsets(ns, len, NULL, off));
    GS_CHECK(block_bytes(be, off, D->nsend, D->soff, D->to, sb));
    GS_CHECK(be->get(&ne, off + ns, sizeof ne));
    GS_CHECK(be->alloc(((size_t)ne + 1) * sizeof *dg, "row fetch", (void **)&dg));
    GS_CHECK(be->alloc(((size_t)ne + 1) * sizeof *dv, "row fetch", (void **)&dv));
    if (ne > 0) GS_CHECK(ops->pack_rows(M, ns, D->sidx->data, off, base, nown, gmap, dg, dv));
    /* every row's length through the halo exchange (as doubles), their offsets, then the
     * entries rank to rank */
    GS_CHECK(gs_vec_create((int64_t)D->cols + nh, D->loc, &x));
    GS_CHECK(ops->lengths(M, x->data));
    GS_CHECK(gs_dist_op_halo(D, x->data, x->data + D->cols));
    GS_CHECK(be->alloc(((size_t)nh + 1) * sizeof *rp, "row fetch", (void **)&rp));
    GS_CHECK(ops->offsets(nh, NULL, x->data + D->cols, rp));
    GS_CHECK(block_bytes(be, rp, D->nrecv, D->roff, D->from, rb));
    GS_CHECK(be->get(&nr, rp + nh, sizeof nr));
    GS_CHECK(be->alloc(((size_t)nr + 1) * sizeof *rg, "row fetch", (void **)&rg));
    GS_CHECK(be->alloc(((size_t)nr + 1) * sizeof *rv, "row fetch", (void **)&rv));
    { /* columns and values (doubles: the same byte counts) in one exchange */
        const void *snd[2] = {dg, dv};
        void *rcv[2] = {rg, rv};
        GS_CHECK(gs_dist_alltoallv_at(D->loc, 2, snd, sb, rcv, rb));
    }
    *rowptr = rp, *nent = nr, *gcol = rg, *val = rv;
    rp = NULL, rg = NULL, rv = NULL;
done:
    if (len) be->free(len);
    if (off) be->free(off);
    if (dg) be->free(dg);
    if (dv) be->free(dv);
    if (rp) be->free(rp);
    if (rg) be->free(rg);
    if (rv) be->free(rv);
    gs_vec_destroy(&x);
    gs_free(sb);
    gs_free(rb);
    return st;
}

gs_status gs_dist_op_host_diag(const gs_dist_op *D, gs_csr **out)
{
    return gs_csr_download(D->diag, out);
}

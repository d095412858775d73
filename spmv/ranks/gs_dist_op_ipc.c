/* gs_dist_op_ipc.c: CUDA IPC between the ranks: halo buffers, peer mappings, rank to rank. */
#include "gs_dist_op.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_dist_op_impl.h"
#include "gs_knob.h"
#include "gs_log.h"
#include "gs_time.h"

/* CUDA IPC for the halos: every rank on one node, a device backend that has it, and
 * GSOLVE_MPI_IPC not 0 (the same on every rank) */
static int ipc_wanted_at(gs_loc loc)
{
    const char *e = gs_knob("GSOLVE_MPI_IPC");
    const gs_backend_ops *be = gs_backend_get(loc);
    return loc != GS_LOC_HOST && be && be->ipc_alloc && gs_comm_size() > 1 &&
           gs_comm_local_size() == gs_comm_size() && !(e && strcmp(e, "0") == 0);
}

int gs_dist_op_ipc_wanted(const gs_dist_op *D) { return ipc_wanted_at(D->loc); }

/* signals on the device unless GSOLVE_MPI_IPC=host (then MPI handshakes) */
static int device_signal_wanted(const gs_backend_ops *be)
{
    const char *e = gs_knob("GSOLVE_MPI_IPC");
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

void gs_dist_op_ipc_release(gs_dist_op *D)
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
    double tp[4] = {gs_dist_op_prof_on() ? gs_time_now() : 0, 0, 0, 0};
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
    if (gs_dist_op_prof_on()) tp[1] = gs_time_now();
    GS_CHECK(gs_comm_alltoallv(sc, sb, rc, rb));
    if (gs_dist_op_prof_on()) tp[2] = gs_time_now();
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
    if (gs_dist_op_prof_on()) {
        tp[3] = gs_time_now();
        if (gs_comm_rank() == 0)
            gs_log(GS_LOG_INFO, "dist profile: IPC buffer %.3f ms, cards %.3f ms, %d mappings %.3f "
                    "ms", 1e3 * (tp[1] - tp[0]), 1e3 * (tp[2] - tp[1]), nn,
                    1e3 * (tp[3] - tp[2]));
    }
    int64_t bad[2] = {lst != GS_OK, shared || !device_signal_wanted(be)};
    GS_CHECK(gs_comm_max_i64(bad, 2));
    if (bad[0]) { /* staged halos instead, on every rank */
        gs_dist_op_ipc_release(D);
        gs_error_clear();
        goto done;
    }
    D->ipc.xh = (gs_vec){D->nhalo, D->ipc.buf, D->loc, GS_F64};
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
    if (st != GS_OK) gs_dist_op_ipc_release(D);
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
    const char *e = gs_knob("GSOLVE_IPC_CONNECT");
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

gs_status gs_dist_op_use_ipc(gs_dist_op *D)
{
    if (!D || D->ipc.buf || !gs_dist_op_ipc_wanted(D)) return GS_OK;
    const double t0 = gs_dist_op_prof_on() ? gs_time_now() : 0;
    gs_status st = ipc_setup(D);
    if (gs_dist_op_prof_on() && gs_comm_rank() == 0)
        gs_log(GS_LOG_INFO, "dist profile: IPC set-up of a %d x %d operator: %.3f ms", D->rows,
                D->cols, 1e3 * (gs_time_now() - t0));
    return st;
}

/* gs_keys.c: the key table (every configuration key: type, default, range, choices, help),
 * values parsed and checked into a gs_config, and the help text of --help-config. The
 * application's configuration file reader (io/gs_config.c) and gsolve_set feed it. */
#include "gs_keys.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_amg.h"
#include "gs_krylov.h"
#include "gs_mem.h"
#include "gs_precond.h"
#include "gs_smoother.h"
#include "gs_spgemm.h"
#include "gs_spmat.h"

#define F(field) offsetof(gs_config, field)
#define NOLIM -HUGE_VAL, HUGE_VAL
#define IMAX 2147483647.0
/* choices read from a registry when first needed (key_choices): the SpMV formats (gs_spmat.h),
 * the Krylov methods (gs_krylov.h), the AMG smoothers (gs_smoother.h), the Galerkin methods */
#define FORMATS "@formats"
#define LEVEL_FORMATS "@level_formats"
#define KRYLOV "@krylov"
#define SMOOTHERS "@smoothers"
#define PRECONDITIONERS "@preconditioners" /* the preconditioners (gs_precond.h) */
/* the AMG's named choices (gs_amg_choice_*, gs_amg.h) */
#define AMG_METHOD "@amg.method"
#define AMG_STRENGTH "@amg.strength"
#define AMG_AGGREGATION "@amg.aggregation"
#define AMG_CYCLE "@amg.cycle"
#define AMG_RESTRICTION "@amg.restriction"
#define AMG_REUSE "@amg.reuse"
#define GALERKIN "@galerkin"     /* the Galerkin (SpGEMM) methods (gs_spgemm.h) */
#define GENERATORS "@generators" /* the problem generators (gs_gen.h), or none */
/* the row the formats' tuning keys take the place of (gs_format_key_at, gs_spmat.h) */
#define FORMAT_KEYS "@format_keys"

/* the problem generators' registry, the application's (gs_config_set_generators, called as the
 * program starts) */
static char g_generators_list[320];
static struct {
    const char *(*choices)(void);
    int (*at)(int i, const char **name, const char **help);
} g_generators;

void gs_config_set_generators(const char *(*choices)(void),
                              int (*at)(int i, const char **name, const char **help))
{
    g_generators.choices = choices;
    g_generators.at = at;
    g_generators_list[0] = '\0';
    if (choices) snprintf(g_generators_list, sizeof g_generators_list, "|%s", choices());
}

/* the AMG choice point behind a "@amg.*" tag, or -1 */
static int amg_kind(const char *tag)
{
    static const char *const tags[GS_AMG_CHOICES] = {AMG_METHOD, AMG_STRENGTH, AMG_AGGREGATION,
                                                     AMG_CYCLE, AMG_RESTRICTION, AMG_REUSE};
    for (int i = 0; tag && i < GS_AMG_CHOICES; i++)
        if (strcmp(tag, tags[i]) == 0) return i;
    return -1;
}

/* The one declaration of every key. A format's tuning keys are
 * declared by the format (spmv/formats/gs_spmat.c) and take the place of the FORMAT_KEYS row. */
static const key_def ROWS[] = {
    {"problem.name", K_STR, F(problem.name), "", NOLIM, NULL,
     "case name in the results; empty: the matrix file's name or the generator's"},
    {"problem.matrix", K_STR, F(problem.matrix), "", NOLIM, NULL,
     "matrix file: Matrix Market (.mtx, .mtx.gz) or HDF5 (.h5, .hdf5, .mat), \"F.h5:/GROUP\", "
     "a dataset or .npy read as a dense matrix"},
    {"problem.group", K_STR, F(problem.group), "", NOLIM, NULL,
     "HDF5 group holding the matrix; empty: the root, else the file's one matrix group"},
    {"problem.rhs", K_STR, F(problem.rhs), "auto", NOLIM, NULL,
     "right-hand side: auto (the file's b, else ones) | ones | random | Ax (b = A*ones) | a "
     "file: Matrix Market, \"F.h5:/NAME\" (HDF5 dataset, MATLAB variable) or .npy; n x k in "
     "a file: k right-hand sides on one setup"},
    {"problem.x0", K_STR, F(problem.x0), "auto", NOLIM, NULL,
     "initial guess: auto (the file's x0, else zero) | zero | random | a file: Matrix Market, "
     "\"F.h5:/NAME\" (HDF5 dataset, MATLAB variable) or .npy"},
    {"problem.nullspace", K_STR, F(problem.nullspace), "none", NOLIM, NULL,
     "none: A is nonsingular; constant: A annihilates the constant vector (e.g. pure Neumann), b "
     "and the iterates are kept orthogonal to it; a file (n x k: .mtx, \"F.h5:/NAME\", .npy): "
     "AMG near-nullspace"},
    {"problem.generate.type", K_STR, F(problem.generate.type), "", NOLIM, GENERATORS,
     "generate the matrix instead of reading problem.matrix (empty: none); --help-config "
     "problem.generate.type describes each type and the keys it reads"},
    {"problem.generate.size", K_INT, F(problem.generate.size), "32", 1, IMAX, NULL,
     "grid points per direction (rotated, elasticity: interior nodes; powerlaw: nodes); "
     "problem.generate.nx, ny, nz override it along one direction"},
    {"problem.generate.nx", K_INT, F(problem.generate.nx), "0", 0, IMAX, NULL,
     "grid points along x (0: problem.generate.size), for a non-cubic grid with ny and nz; "
     "unknowns numbered x fastest; all grid types, powerlaw refuses it"},
    {"problem.generate.ny", K_INT, F(problem.generate.ny), "0", 0, IMAX, NULL,
     "grid points along y (0: problem.generate.size), as problem.generate.nx"},
    {"problem.generate.nz", K_INT, F(problem.generate.nz), "0", 0, IMAX, NULL,
     "grid points along z (0: problem.generate.size), 3D grids only (stencil 7 or 27, jumps), "
     "as problem.generate.nx"},
    {"problem.generate.stencil", K_INT, F(problem.generate.stencil), "7", 5, 27, NULL,
     "5 or 9 (2D), 7 or 27 (3D) points; elasticity: picks only 2D or 3D (nodes couple to all 3^d "
     "neighbours); jumps, rotated and powerlaw ignore it"},
    {"problem.generate.dof", K_INT, F(problem.generate.dof), "1", 1, 64, NULL,
     "poisson, anisotropic, convdiff: unknowns per grid point (block structure); 1 for the "
     "other types"},
    {"problem.generate.seed", K_INT, F(problem.generate.seed), "1", 0, 9.2e18, NULL,
     "seed of the powerlaw graph, of the jumps coefficients and of random right-hand sides and "
     "initial guesses"},
    {"problem.generate.epsilon", K_FLOAT, F(problem.generate.epsilon), "0.001", 1e-300, 1e300, NULL,
     "anisotropic: coupling strength in the x direction; rotated: diffusion across the strong "
     "direction (K = R(angle) diag(1, epsilon) R(angle)^T)"},
    {"problem.generate.angle", K_FLOAT, F(problem.generate.angle), "22.5", -1e6, 1e6, NULL,
     "rotated: direction of the strong diffusion, in degrees from the x axis"},
    {"problem.generate.contrast", K_FLOAT, F(problem.generate.contrast), "1000", 1, 1e150, NULL,
     "jumps: each cube's coefficient is 1/contrast, 1 or contrast (drawn from the seed)"},
    {"problem.steps", K_INT, F(problem.steps), "1", 1, 100000, NULL,
     "systems of one pattern solved in one process, one after another, each setup keeping what "
     "amg.reuse says: problem.sequence's files, or the generator's coefficients at each step "
     "(jumps: problem.generate.drift); 1: one system"},
    {"problem.sequence", K_LIST, F(problem.sequence), "", NOLIM, NULL,
     "the steps' matrix files, one pattern (problem.matrix is step 0's when this is empty); an "
     "entry with a printf integer field (\"A_%03d.mtx\") names every step's file by its number "
     "from 0; problem.rhs and output.solution may hold such a field too"},
    {"problem.generate.drift", K_FLOAT, F(problem.generate.drift), "0.1", 0, 0.9, NULL,
     "a generated sequence (problem.steps): each step multiplies every coefficient by 1 + drift "
     "u, u drawn in [-1, 1] from the seed (jumps: each cube's; the other types: each grid "
     "point's, as A := D A D)"},
    {"problem.generate.block", K_INT, F(problem.generate.block), "8", 1, IMAX, NULL,
     "jumps: grid points per edge of the cubes of constant coefficient (the last ones partial)"},
    {"problem.generate.E", K_FLOAT, F(problem.generate.E), "1", 1e-300, 1e300, NULL,
     "elasticity: Young's modulus (> 0)"},
    {"problem.generate.nu", K_FLOAT, F(problem.generate.nu), "0.3", -1, 0.5, NULL,
     "elasticity: Poisson ratio, -1 < nu < 0.5 (plane strain in 2D)"},
    {"problem.generate.velocity", K_FLOAT, F(problem.generate.velocity), "10", 0, 1e300, NULL,
     "convdiff: convection strength"},
    {"problem.generate.degree", K_FLOAT, F(problem.generate.degree), "8", 1e-300, 1e9, NULL,
     "powerlaw: mean degree"},
    {"problem.generate.exponent", K_FLOAT, F(problem.generate.exponent), "2.5", 2.000001, 100, NULL,
     "powerlaw: degree distribution exponent (> 2)"},
    {"solver.type", K_STR, F(solver.type), "cg", NOLIM, KRYLOV,
     "Krylov method: cg (symmetric positive definite A), minres (symmetric A, indefinite "
     "allowed, symmetric positive definite preconditioner), bicgstab, gmres, fgmres (any A)"},
    {"solver.rtol", K_FLOAT, F(solver.rtol), "1e-8", 0, 1e300, NULL,
     "stop when ||b - A x|| <= rtol ||b||"},
    {"solver.atol", K_FLOAT, F(solver.atol), "0", 0, 1e300, NULL, "or when ||b - A x|| <= atol"},
    {"solver.dtol", K_FLOAT, F(solver.dtol), "1e5", 0, 1e300, NULL,
     "stop as diverged when a residual norm exceeds dtol ||b - A x0|| (0: never)"},
    {"solver.max_iters", K_INT, F(solver.max_iters), "1000", 0, IMAX, NULL,
     "iteration limit (GMRES: inner steps)"},
    {"solver.restart", K_INT, F(solver.restart), "30", 1, 100000, NULL,
     "GMRES/FGMRES restart length"},
    {"solver.stagnation_window", K_INT, F(solver.stagnation_window), "1000", 0, IMAX, NULL,
     "stop as stagnated when the best residual gains < 0.1% in this many iterations (or in "
     "the last quarter of the run, when longer; 0: off)"},
    {"solver.preconditioner", K_STR, F(solver.preconditioner), "jacobi", NOLIM, PRECONDITIONERS,
     "the Krylov method's preconditioner, applied once per iteration"},
    {"spmv.format", K_STR, F(spmv.format), "auto", NOLIM, FORMATS,
     "SpMV format on every AMG level; auto: chosen from the matrix's row lengths and diagonal "
     "structure; measure: times each, keeps the fastest; one unfit for A falls back to csr"},
    {"spmv.levels", K_LIST, F(spmv.levels), "", NOLIM, LEVEL_FORMATS,
     "one format per AMG level, e.g. [\"cds\", \"cmrs\", \"csr\"], the last repeated on deeper "
     "levels (overrides spmv.format); empty: spmv.format on every level"},
    {FORMAT_KEYS, K_STR, 0, "", NOLIM, NULL, ""},
    {"amg.method", K_STR, F(amg.method), "auto", NOLIM, AMG_METHOD,
     "the AMG method; auto chooses from the matrix, and smoothed aggregation whenever a block "
     "size or near-nullspace is given and across MPI ranks"},
    {"amg.theta", K_FLOAT, F(amg.theta), "0.3", 0, 1, NULL,
     "smoothed aggregation: strength-of-connection threshold (see amg.strength); larger: fewer "
     "strong couplings, smaller aggregates that follow anisotropy and jumps, more levels"},
    {"amg.classical_theta", K_FLOAT, F(amg.classical_theta), "0.25", 0, 1, NULL,
     "classical AMG: j is a strong neighbour of i when -a_ij sign(a_ii) > classical_theta "
     "max_k (-a_ik sign(a_ii)); couplings of the diagonal's sign are weak"},
    {"amg.interp_max_elements", K_INT, F(amg.interp_max_elements), "0", 0, 64, NULL,
     "classical AMG: most entries kept per interpolation row (the largest, row sum kept), halved "
     "on a level that would grow; 0: 4, or 1 when the matrix has irregular rows"},
    {"amg.restriction", K_STR, F(amg.restriction), "auto", NOLIM, AMG_RESTRICTION,
     "classical AMG's restriction R (at is refused across MPI ranks)"},
    {"amg.interp_trunc", K_FLOAT, F(amg.interp_trunc), "0", 0, 1, NULL,
     "classical AMG: interpolation entries below this fraction of their row's largest are "
     "dropped (the row rescaled to keep its sum)"},
    {"amg.strength", K_STR, F(amg.strength), "rowmax", NOLIM, AMG_STRENGTH,
     "smoothed aggregation: when j is a strong neighbour of i (block systems compare block "
     "norms)"},
    {"amg.filter", K_INT, F(amg.filter), "1", 0, 1, NULL,
     "1 (with theta > 0, one unknown per node): smooth the prolongator with a filtered matrix, "
     "weak couplings lumped to the diagonal; keeps P and coarse levels sparse on anisotropic "
     "problems"},
    {"amg.aggregation", K_STR, F(amg.aggregation), "auto", NOLIM, AMG_AGGREGATION,
     "smoothed aggregation: how nodes are grouped into aggregates"},
    {"amg.max_levels", K_INT, F(amg.max_levels), "10", 1, 50, NULL, "most levels of the hierarchy"},
    {"amg.coarse_size", K_INT, F(amg.coarse_size), "200", 1, 20000, NULL,
     "stop coarsening at this many unknowns; the coarsest level is solved by a dense "
     "factorization made once in the setup"},
    {"amg.gather_rows", K_INT, F(amg.gather_rows), "20000", 1, 100000000, NULL,
     "under MPI: the first level with at most this many rows in all is gathered onto every rank "
     "and the rest of the hierarchy built and solved there (one process: no effect)"},
    {"amg.galerkin", K_STR, F(amg.galerkin), "auto", NOLIM, GALERKIN,
     "Galerkin product R (A P): dcsr (row-binned DCSR SpGEMM, GPU), cusparse (cuSPARSE SpGEMM, "
     "GPU), host; auto: dcsr on the GPU, host on the host"},
    {"amg.cycle", K_STR, F(amg.cycle), "V", NOLIM, AMG_CYCLE, "the multigrid cycle"},
    {"amg.reuse", K_STR, F(amg.reuse), "auto", NOLIM, AMG_REUSE,
     "what a setup with new values of the same pattern keeps (problem.sequence's steps, "
     "gsolve_update_values)"},
    {"amg.smoother", K_STR, F(amg.smoother), "auto", NOLIM, SMOOTHERS,
     "smoother on every level but the coarsest; auto: chebyshev for a symmetric matrix, else "
     "l1jacobi with twice amg.presweeps and amg.postsweeps"},
    {"amg.smoother_omega", K_FLOAT, F(amg.smoother_omega), "0", 0, 2, NULL,
     "weighted Jacobi: damping; 0: 4/3 / rho(D^-1 A), rho estimated in the setup"},
    {"amg.chebyshev_degree", K_INT, F(amg.chebyshev_degree), "3", 1, 20, NULL,
     "Chebyshev smoother: polynomial degree (SpMVs per sweep)"},
    {"amg.coarse_chebyshev_degree", K_INT, F(amg.coarse_chebyshev_degree), "10", 0, 20, NULL,
     "Chebyshev degree on levels 2 and below with at most 10% of level 0's nonzeros (cheap "
     "SpMVs), strengthening the smoother there; 0: amg.chebyshev_degree everywhere"},
    {"amg.chebyshev_ratio", K_FLOAT, F(amg.chebyshev_ratio), "10", 1, 1e6, NULL,
     "Chebyshev smoother damps [hi / r, hi], hi = 1.1 rho(D^-1 A), r = max(ratio, degree^2); a "
     "larger ratio damps a wider band of the spectrum, less strongly"},
    {"amg.presweeps", K_INT, F(amg.presweeps), "1", 0, 20, NULL, "smoothing sweeps before "
     "restriction"},
    {"amg.postsweeps", K_INT, F(amg.postsweeps), "1", 0, 20, NULL, "smoothing sweeps after "
     "prolongation (equal to presweeps keeps the preconditioner symmetric for CG)"},
    {"amg.block_size", K_INT, F(amg.block_size), "0", 0, 64, NULL,
     "unknowns per grid point, aggregated together (0: the generated problem's, i.e. "
     "problem.generate.dof or elasticity's dimension; 1 for a matrix file)"},
    {"amg.smooth_prolongator", K_INT, F(amg.smooth_prolongator), "1", 0, 1, NULL,
     "smooth the tentative prolongator with weighted Jacobi (0: plain aggregation)"},
    {"amg.prolongator_omega", K_FLOAT, F(amg.prolongator_omega), "1.3333333333333333", 0, 2,
     NULL, "prolongator smoothing: omega / rho(D^-1 A) is the Jacobi damping"},
    {"run.backend", K_STR, F(run.backend), "auto", NOLIM, "auto|host|cuda",
     "auto: the GPU when one is present, else the host"},
    {"run.device", K_INT, F(run.device), "0", 0, 1024, NULL, "CUDA device number"},
    {"run.threads", K_INT, F(run.threads), "0", 0, 4096, NULL,
     "host threads; 0: OMP_NUM_THREADS, else the CPUs this process may use (affinity, cgroup "
     "quota, SLURM_CPUS_PER_TASK), at most one per 20000 rows"},
    {"output.csv", K_STR, F(output.csv), "", NOLIM, NULL,
     "CSV file that gets one row per run (header on first write)"},
    {"output.hdf5", K_STR, F(output.hdf5), "", NOLIM, NULL,
     "HDF5 record of the run: solution, residual history, every CSV field"},
    {"output.history", K_STR, F(output.history), "", NOLIM, NULL,
     "CSV file for the residual history: iteration, residual, relative residual, time"},
    {"output.solution", K_STR, F(output.solution), "", NOLIM, NULL,
     "Matrix Market file for the solution x"},
    {"output.verbosity", K_INT, F(output.verbosity), "1", 0, 3, NULL,
     "0 quiet, 1 summary, 2 + residual every 10 iterations, 3 + every iteration"},
    {"output.monitor", K_INT, F(output.monitor), "0", 0, IMAX, NULL,
     "print \"iter N  residual r  relative rr\" every this many iterations as the solve runs, "
     "whatever the verbosity (0: off)"},
    {"output.profile", K_INT, F(output.profile), "0", 0, 1, NULL,
     "1: time each operation per AMG level and Krylov step (summary table, CSV column, HDF5 "
     "attribute); also on at verbosity >= 2; synchronizes the device, so the solve is slower"},
    {"batch.cases", K_CASES, F(batch.cases), "0", NOLIM, NULL,
     "batch file only: ( { name = \"a\"; matrix = \"A.mtx\"; }, { generate = { ... }; set = "
     "[\"solver.rtol=1e-6\"]; }, ... ); top-level keys are every case's defaults"},
    {"batch.formats", K_LIST, F(batch.formats), "", NOLIM, FORMATS,
     "SpMV formats every case runs with, e.g. [\"csr\", \"cmrs\", \"cds\"] (--set "
     "batch.formats=csr,cds); empty: spmv.format alone"},
    {"batch.repeats", K_INT, F(batch.repeats), "1", 1, 1000, NULL,
     "runs of each (case, format); the report takes the median"},
    {"batch.warmup", K_INT, F(batch.warmup), "0", 0, 100, NULL,
     "runs of each (case, format) before the counted repeats, recorded with warmup = 1 and left "
     "out of the report's statistics"},
    {"batch.results", K_STR, F(batch.results), "results", NOLIM, NULL,
     "folder of the result files (one CSV and one folder of HDF5 records per case), merged by "
     "gsolve report"},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])
#define FORMAT_KEYS_MAX 64

/* The key table: ROWS with the formats' tuning keys in place of the FORMAT_KEYS row, made at
 * first use. */
static key_def KEYS[NROWS + FORMAT_KEYS_MAX];

/* How many keys KEYS holds (made on the first call). */
static size_t g_nkeys;
static char g_formats[320], g_level_formats[320], g_smoothers[320];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* The table and the registries' choice lists, made once (contexts may be made on several
 * threads at once; afterwards everything here is only read). */
static void build(void)
{
    const gs_format_key *fk;
    size_t n = 0;
    (void)gs_krylov_choices(); /* the registries' own lists, made here, once */
    (void)gs_spgemm_choices();
    (void)gs_precond_choices();
    for (int i = 0; i < GS_AMG_CHOICES; i++) (void)gs_amg_choice_list((gs_amg_choice_kind)i);
    snprintf(g_smoothers, sizeof g_smoothers, "auto|%s", gs_smoother_choices());
    snprintf(g_formats, sizeof g_formats, "auto|measure|%s", gs_format_choices());
    snprintf(g_level_formats, sizeof g_level_formats, "auto|%s", gs_format_choices());
    for (size_t i = 0; i < NROWS; i++) {
        if (strcmp(ROWS[i].key, FORMAT_KEYS) != 0) {
            KEYS[n++] = ROWS[i];
            continue;
        }
        for (int j = 0; j < FORMAT_KEYS_MAX && (fk = gs_format_key_at(j)) != NULL; j++) {
            key_def k = {fk->key, K_STR, F(spmv.params), fk->def, NOLIM, fk->choices, fk->help};
            if (fk->type != GS_FORMAT_KEY_CHOICE) { /* a number and its range */
                k.type = fk->type == GS_FORMAT_KEY_INT ? K_INT : K_FLOAT;
                k.min = fk->min, k.max = fk->max;
            }
            KEYS[n++] = k;
        }
    }
    g_nkeys = n;
}

static size_t nkeys(void)
{
    pthread_once(&g_once, build);
    return g_nkeys;
}

const key_def *gs_config_keys(size_t *n)
{
    *n = nkeys();
    return KEYS;
}

const gs_format_key *gs_config_format_key(const key_def *k)
{
    const gs_format_key *fk = NULL;
    if (k->off != F(spmv.params)) return NULL;
    for (int i = 0; (fk = gs_format_key_at(i)) != NULL; i++)
        if (strcmp(fk->key, k->key) == 0) break;
    return fk;
}

const key_def *gs_config_find_key(const char *key)
{
    for (size_t i = 0; i < nkeys(); i++)
        if (strcmp(KEYS[i].key, key) == 0) return &KEYS[i];
    return NULL;
}

/* Levenshtein distance, for "did you mean" hints on short keys. */
int gs_config_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

/* An error for an unknown key, with the closest known key as a hint. */
gs_status gs_config_unknown_key(const char *where, const char *key)
{
    const char *best = NULL;
    int bd = 99;
    for (size_t i = 0; i < nkeys(); i++) {
        int d = gs_config_edit_distance(key, KEYS[i].key);
        if (d < bd) bd = d, best = KEYS[i].key;
    }
    if (best && bd <= 4)
        return GS_ERROR(GS_ERR_CONFIG, "%s: unknown key '%s' (did you mean '%s'?)", where, key,
                        best);
    return GS_ERROR(GS_ERR_CONFIG, "%s: unknown key '%s' (gsolve --help-config lists them)", where,
                    key);
}

const char *gs_config_type_name(key_type t)
{
    return t == K_STR     ? "a string"
           : t == K_INT   ? "an integer"
           : t == K_FLOAT ? "a number"
           : t == K_LIST  ? "a list of strings"
                          : "a list of case groups";
}

/* The "a|b|c" choices of key k: its own, or the names a registry lists ("@..."). */
const char *gs_config_key_choices(const key_def *k)
{
    if (!k->choices || k->choices[0] != '@') return k->choices;
    (void)nkeys(); /* the lists below made */
    if (strcmp(k->choices, GENERATORS) == 0) { /* "" (no generator) is a choice too */
        return g_generators_list[0] ? g_generators_list : "|"; /* none registered: none */
    }
    if (strcmp(k->choices, KRYLOV) == 0) return gs_krylov_choices();
    if (strcmp(k->choices, SMOOTHERS) == 0) return g_smoothers;
    if (strcmp(k->choices, PRECONDITIONERS) == 0) return gs_precond_choices();
    if (amg_kind(k->choices) >= 0) return gs_amg_choice_list((gs_amg_choice_kind)amg_kind(k->choices));
    if (strcmp(k->choices, GALERKIN) == 0) return gs_spgemm_choices();
    return strcmp(k->choices, FORMATS) == 0 ? g_formats : g_level_formats;
}

/* The index of v among the "a|b|c" choices, or -1. */
static int choice_index(const char *choices, const char *v)
{
    const char *p = choices;
    size_t n = strlen(v);
    for (int i = 0; p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0) return i;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* v is one of the "a|b|c" choices. */
static int in_choices(const char *choices, const char *v)
{
    return choice_index(choices, v) >= 0;
}

/* Store a string value after checking length and choices. */
gs_status gs_config_store_str(gs_config *c, const key_def *k, const char *v, const char *where)
{
    if (strlen(v) >= GS_CFG_STR)
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s is longer than %d characters", where, k->key,
                        GS_CFG_STR - 1);
    const char *ch = gs_config_key_choices(k);
    if (ch && !in_choices(ch, v))
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s = \"%s\" is not one of: %s", where, k->key, v,
                        ch[0] == '|' ? ch + 1 : ch);
    if (gs_config_format_key(k))
        gs_format_key_put(gs_config_format_key(k), &c->spmv.params, choice_index(ch, v));
    else
        memcpy((char *)c + k->off, v, strlen(v) + 1);
    return GS_OK;
}

int gs_config_list_item(const char *list, int i, char *out, size_t len)
{
    const char *p = list;
    if (!*p) return 0;
    for (; i > 0; i--) {
        p = strchr(p, ',');
        if (!p) return 0;
        p++;
    }
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= len) n = len - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* Store a list given as "a,b,c" after checking each item against the choices. */
gs_status gs_config_store_list(gs_config *c, const key_def *k, const char *joined, const char *where)
{
    char item[GS_CFG_STR];
    if (strlen(joined) >= GS_CFG_STR)
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s is longer than %d characters", where, k->key,
                        GS_CFG_STR - 1);
    for (int i = 0; gs_config_list_item(joined, i, item, sizeof item); i++) {
        if (!item[0])
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s: item %d is empty", where, k->key, i + 1);
        const char *ch = gs_config_key_choices(k);
        if (ch && !in_choices(ch, item))
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s: \"%s\" is not one of: %s", where, k->key,
                            item, ch[0] == '|' ? ch + 1 : ch);
    }
    memcpy((char *)c + k->off, joined, strlen(joined) + 1);
    return GS_OK;
}

/* A list written as text ("a,b", "[a, b]", "[\"a\", \"b\"]") to "a,b". */
static void list_from_text(const char *text, char *out, size_t len)
{
    size_t n = 0;
    const char *p = text;
    while (*p == ' ' || *p == '[' || *p == '(') p++;
    while (*p && n + 1 < len) {
        const char *end = strchr(p, ',');
        size_t m = end ? (size_t)(end - p) : strlen(p);
        while (m && strchr(" ])\"'", p[m - 1])) m--;
        while (m && strchr(" \"'", *p)) p++, m--;
        if (n && n + 1 < len) out[n++] = ',';
        for (size_t i = 0; i < m && n + 1 < len; i++) out[n++] = p[i];
        if (!end) break;
        p = end + 1;
    }
    out[n] = '\0';
}

/* Store a number after checking its range. */
gs_status gs_config_store_num(gs_config *c, const key_def *k, double v, const char *where)
{
    if (!(v >= k->min && v <= k->max)) {
        if (k->type == K_INT)
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s = %.17g is out of range %.0f..%.0f", where,
                            k->key, v, k->min, k->max);
        if (k->min == 0 && v < 0)
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s = %g must not be negative", where, k->key, v);
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s = %g is out of range %g..%g", where, k->key, v,
                        k->min, k->max);
    }
    if (gs_config_format_key(k))
        gs_format_key_put(gs_config_format_key(k), &c->spmv.params, v);
    else if (k->type == K_INT || k->type == K_CASES)
        *(int64_t *)((char *)c + k->off) = (int64_t)v;
    else
        *(double *)((char *)c + k->off) = v;
    return GS_OK;
}

/* Parse text by the key's type and store it (defaults and --set). */
gs_status gs_config_store_text(gs_config *c, const key_def *k, const char *text, const char *where)
{
    if (k->type == K_STR) return gs_config_store_str(c, k, text, where);
    if (k->type == K_LIST) {
        char joined[GS_CFG_STR];
        if (strlen(text) >= GS_CFG_STR) /* list_from_text would cut it short without a word */
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s is longer than %d characters", where, k->key,
                            GS_CFG_STR - 1);
        list_from_text(text, joined, sizeof joined);
        return gs_config_store_list(c, k, joined, where);
    }
    if (k->type == K_CASES)
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s can only be given in a config file", where, k->key);
    char *end = NULL;
    errno = 0;
    if (k->type == K_INT) {
        long long v = strtoll(text, &end, 10);
        if (end == text || *end || errno)
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s expects an integer, got \"%s\"", where, k->key,
                            text);
        return gs_config_store_num(c, k, (double)v, where);
    }
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v))
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s expects a number, got \"%s\"", where, k->key, text);
    return gs_config_store_num(c, k, v, where);
}

void gs_config_defaults(gs_config *c)
{
    memset(c, 0, sizeof *c);
    gs_format_params_default(&c->spmv.params); /* the fields no key sets */
    for (size_t i = 0; i < nkeys(); i++) {
        if (KEYS[i].type == K_CASES) continue; /* 0: not a batch */
        gs_status st = gs_config_store_text(c, &KEYS[i], KEYS[i].def, "default");
        (void)st; /* the defaults are in range by construction (tested) */
    }
}

/* "key=value" from --set (at == NULL) or from a case's set list (at = "file:line"). */
gs_status gs_config_assign(gs_config *c, const char *assignment, const char *at)
{
    char key[256], where[GS_CFG_STR + 300];
    const char *eq = strchr(assignment, '='), *k0 = assignment;
    while (*k0 == ' ' || *k0 == '\t') k0++; /* "solver.rtol = 1e-6": spaces around both */
    const char *k1 = eq;
    while (k1 && k1 > k0 && (k1[-1] == ' ' || k1[-1] == '\t')) k1--;
    if (!eq || k1 == k0 || (size_t)(k1 - k0) >= sizeof key) {
        if (at)
            return GS_ERROR(GS_ERR_CONFIG, "%s: set \"%s\": expected key=value", at, assignment);
        return GS_ERROR(GS_ERR_CONFIG, "--set %s: expected key=value", assignment);
    }
    memcpy(key, k0, (size_t)(k1 - k0));
    key[k1 - k0] = '\0';
    if (at)
        snprintf(where, sizeof where, "%s", at);
    else
        snprintf(where, sizeof where, "--set %s", key);
    const key_def *k = gs_config_find_key(key);
    if (!k) return gs_config_unknown_key(at ? at : "--set", key);
    if (at && strncmp(key, "batch.", 6) == 0)
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s cannot be set inside a case", at, key);
    const char *v = eq + 1;
    while (*v == ' ' || *v == '\t') v++;
    size_t n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
    if (n >= 2 && ((v[0] == '"' && v[n - 1] == '"') || (v[0] == '\'' && v[n - 1] == '\''))) {
        char buf[GS_CFG_STR];
        if (n - 2 >= sizeof buf)
            return GS_ERROR(GS_ERR_CONFIG, "%s: value longer than %d characters", where,
                            GS_CFG_STR - 1);
        memcpy(buf, v + 1, n - 2);
        buf[n - 2] = '\0';
        return gs_config_store_text(c, k, buf, where);
    }
    if (n < strlen(v)) { /* trailing blanks cut off */
        char buf[GS_CFG_STR];
        if (n >= sizeof buf)
            return GS_ERROR(GS_ERR_CONFIG, "%s: value longer than %d characters", where,
                            GS_CFG_STR - 1);
        memcpy(buf, v, n);
        buf[n] = '\0';
        return gs_config_store_text(c, k, buf, where);
    }
    return gs_config_store_text(c, k, v, where);
}

gs_status gs_config_set(gs_config *c, const char *assignment)
{
    return gs_config_assign(c, assignment, NULL);
}

int gs_config_nullspace_constant(const gs_config *c)
{
    return strcmp(c->problem.nullspace, "constant") == 0;
}

const char *gs_config_nullspace_file(const gs_config *c)
{
    const char *v = c->problem.nullspace;
    return v[0] && strcmp(v, "none") != 0 && strcmp(v, "constant") != 0 ? v : NULL;
}

/* One key's entry of --help-config: name, type, default, choices or range, help. */
static void print_key(const gs_out *f, const key_def *k)
{
    const char *t = k->type == K_STR     ? "string"
                    : k->type == K_INT   ? "int"
                    : k->type == K_FLOAT ? "float"
                    : k->type == K_LIST  ? "list"
                                         : "cases";
    if (k->type == K_CASES)
        gs_outf(f, "%-28s %-6s (none: not a batch)", k->key, t);
    else if (k->type == K_LIST)
        gs_outf(f, "%-28s %-6s default [%s]", k->key, t, k->def);
    else
        gs_outf(f, "%-28s %-6s default %s%s%s", k->key, t, k->type == K_STR ? "\"" : "", k->def,
                k->type == K_STR ? "\"" : "");
    const char *ch = gs_config_key_choices(k);
    if (ch)
        gs_outf(f, "  %s: %s", k->type == K_LIST ? "items" : "one of", ch[0] == '|' ? ch + 1 : ch);
    else if (k->type == K_INT && isfinite(k->min) && isfinite(k->max))
        gs_outf(f, "  range: %.0f..%.0f", k->min, k->max);
    else if (k->type != K_STR && isfinite(k->min) && isfinite(k->max))
        gs_outf(f, "  range: %g..%g", k->min, k->max);
    gs_outf(f, "\n    %s\n", k->help);
}

void gs_config_print_help(const gs_out *f)
{
    gs_outf(f, "gsolve configuration keys (libconfig syntax: group = { key = value; };)\n"
               "Relative input paths in a file are relative to that file's folder.\n"
               "gsolve --help-config KEY prints one key, or every key of a group (amg, "
               "problem.generate).\n\n");
    for (size_t i = 0; i < nkeys(); i++) print_key(f, &KEYS[i]);
}

/* Unknown --help-config topic: the keys it is close to (by edit distance to the key or to its
 * last part, then the keys containing it), closest first. */
static gs_status unknown_topic(const char *topic)
{
    char list[1024];
    size_t len = 0, tl = strlen(topic);
    int n = 0, lim = tl / 3 > 2 ? (int)(tl / 3) : 2;
    list[0] = '\0';
    for (int d = 0; d <= lim + 1 && n < 8; d++)
        for (size_t i = 0; i < nkeys() && n < 8; i++) {
            const char *leaf = strrchr(KEYS[i].key, '.');
            int dist = gs_config_edit_distance(topic, KEYS[i].key);
            if (leaf && gs_config_edit_distance(topic, leaf + 1) < dist)
                dist = gs_config_edit_distance(topic, leaf + 1);
            int score = dist <= lim ? dist : tl >= 3 && strstr(KEYS[i].key, topic) ? lim + 1 : -1;
            if (score != d) continue;
            len +=
                (size_t)snprintf(list + len, sizeof list - len, "%s%s", n ? ", " : "", KEYS[i].key);
            n++;
        }
    if (n)
        return GS_ERROR(GS_ERR_CONFIG, "--help-config %s: no such key or group; close keys: %s",
                        topic, list);
    return GS_ERROR(GS_ERR_CONFIG,
                    "--help-config %s: no such key or group (gsolve --help-config lists them)",
                    topic);
}

/* Entry i of the registry behind a key's choices ("@..."): its name and help line; 0 past the
 * end or when the choices are the key's own. */
static int registry_entry(const char *tag, int i, const char **name, const char **help)
{
    const gs_format_desc *fd;
    const gs_krylov_method *km;
    const gs_smoother *sm;
    const gs_spgemm_desc *gd;
    const gs_precond *pd;
    const gs_amg_choice *ac;
    *name = *help = NULL;
    if (!tag || tag[0] != '@') return 0;
    if ((!strcmp(tag, FORMATS) || !strcmp(tag, LEVEL_FORMATS)) && (fd = gs_format_at(i)))
        *name = fd->name, *help = fd->help;
    else if (!strcmp(tag, KRYLOV) && (km = gs_krylov_at(i)))
        *name = km->name, *help = km->help;
    else if (!strcmp(tag, SMOOTHERS) && (sm = gs_smoother_at(i)))
        *name = sm->name, *help = sm->help;
    else if (amg_kind(tag) >= 0 && (ac = gs_amg_choice_at((gs_amg_choice_kind)amg_kind(tag), i)))
        *name = ac->name, *help = ac->help;
    else if (!strcmp(tag, PRECONDITIONERS) && (pd = gs_precond_at(i)))
        *name = pd->name, *help = pd->help;
    else if (!strcmp(tag, GALERKIN) && (gd = gs_spgemm_method_at(i)))
        *name = gd->name, *help = gd->help;
    else if (!strcmp(tag, GENERATORS) && g_generators.at)
        g_generators.at(i, name, help);
    return *name != NULL;
}

/* A key whose choices come from a registry: one line per registered entry with its help. */
static void print_entries(const gs_out *f, const key_def *k)
{
    const char *name, *help;
    for (int i = 0; registry_entry(k->choices, i, &name, &help); i++)
        if (help && help[0]) gs_outf(f, "      %-12s %s\n", name, help);
}

gs_status gs_config_print_help_key(const gs_out *f, const char *topic)
{
    size_t n = strlen(topic);
    int found = 0;
    while (n > 0 && topic[n - 1] == '.') n--; /* "amg." is the group amg */
    for (size_t i = 0; i < nkeys(); i++) {
        const char *k = KEYS[i].key;
        if (strncmp(k, topic, n) == 0 && (k[n] == '\0' || k[n] == '.')) {
            print_key(f, &KEYS[i]);
            print_entries(f, &KEYS[i]);
            found++;
        }
    }
    return found ? GS_OK : unknown_topic(topic);
}

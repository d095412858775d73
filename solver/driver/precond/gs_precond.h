/* gs_precond.h: the preconditioners of one-process solves (solver.preconditioner), a registry.
 * Each entry builds its operator M for a setup from the system; the key's choices and the
 * help of --help-config come from here. A new preconditioner is its file here plus one line in
 * gs_precond.c. */
#ifndef GS_PRECOND_H
#define GS_PRECOND_H

#include "gs_amg.h"
#include "gs_csr.h"
#include "gs_driver.h"
#include "gs_linop.h"
#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a preconditioner's setup gets and gives. */
typedef struct gs_pc_build {
    /* in */
    const gs_config *c;
    const gs_problem *p;
    const gs_csr *A;   /* the matrix where the solve runs (the device copy, or p->A) */
    gs_loc loc;
    const char *where; /* the matrix's name in messages */
    gs_run *run;       /* the record: the preconditioner adds what it reports */
    int drop_csr;      /* GS_AMG_DROP_*: the CSR copies it may free once their formats are made
                        * (ALL: A's arrays too, the driver's device copy) */
    /* out */
    gs_linop M;          /* the operator (apply NULL: none, the Krylov method runs without) */
    gs_spmat *A_op;      /* the operator it made for A's products (AMG's finest level), which
                          * the Krylov method uses too (borrowed), or NULL */
    gs_amg *amg;         /* an AMG hierarchy, for the profile (borrowed), or NULL */
    void *state;         /* freed by destroy(state) with the setup */
    void (*destroy)(void *state);
} gs_pc_build;

typedef struct gs_precond {
    const char *name; /* the value of solver.preconditioner */
    const char *help; /* one line for --help-config */
    gs_status (*build)(gs_pc_build *b);
} gs_precond;

/* The entry of that name, or NULL; entry i (NULL past the end); "a|b|c" of every name. */
const gs_precond *gs_precond_find(const char *name);
const gs_precond *gs_precond_at(int i);
const char *gs_precond_choices(void);

/* the entries (each in its own file) */
extern const gs_precond gs_pc_none, gs_pc_jacobi, gs_pc_amg;

#ifdef __cplusplus
}
#endif
#endif

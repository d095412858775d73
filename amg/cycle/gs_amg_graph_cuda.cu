/* gs_amg_graph_cuda.cu: the AMG cycle recorded into a CUDA graph and replayed (the device
 * table's graph_* steps, gs_amg_ops.h). Nothing may allocate while recording: gs_cuda_alloc
 * refuses then, and gs_amg_apply falls back to the plain cycle. */
#include "gs_cuda_impl.h"

/* begin recording the stream's work */
extern "C" gs_status gs_amg_cuda_graph_begin(void)
{
    gs_status st = GS_OK;
    GS_CUDA_CALL(cudaStreamBeginCapture(gs_cuda_g.stream, cudaStreamCaptureModeThreadLocal));
    gs_cuda_g.capturing = 1;
done:
    return st;
}

/* ends the capture (always, also after a failure inside it); *exec the instantiated graph */
extern "C" gs_status gs_amg_cuda_graph_end(void **exec)
{
    gs_status st = GS_OK;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t ge = NULL;
    *exec = NULL;
    gs_cuda_g.capturing = 0;
    /* an invalidated capture fails here (cudaErrorStreamCaptureInvalidated), still ending it */
    GS_CUDA_CALL(cudaStreamEndCapture(gs_cuda_g.stream, &graph));
    GS_CUDA_CALL(cudaGraphInstantiate(&ge, graph, 0));
    *exec = ge;
done:
    (void)cudaGetLastError(); /* a launch refused while recording must not fail a later check */
    if (graph) (void)cudaGraphDestroy(graph);
    return st;
}

extern "C" gs_status gs_amg_cuda_graph_launch(void *exec)
{
    gs_status st = GS_OK;
    GS_CUDA_CALL(cudaGraphLaunch((cudaGraphExec_t)exec, gs_cuda_g.stream));
done:
    return st;
}

extern "C" void gs_amg_cuda_graph_destroy(void *exec)
{
    if (exec) (void)cudaGraphExecDestroy((cudaGraphExec_t)exec);
}


/* test_driver_version: the NVIDIA kernel module's version read from the lines
 * /proc/driver/nvidia/version holds, the proprietary and the open module's. */
#include <string.h>

#include "gs_backend.h"
#include "gs_test.h"

static void expect(const char *line, const char *want)
{
    char out[64] = "none";
    gs_nvidia_module_version(line, out, sizeof out);
    CHECK_MSG(strcmp(out, want) == 0, "'%s': got '%s', expected '%s'", line, out, want);
}

int main(void)
{
    expect("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC "
           "2024\n",
           "550.54.15");
    expect("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  "
           "(dvs-builder@U16-I3-B03-4-3)  Fri Mar 14 2025\n",
           "570.133.20");
    expect("NVRM version: NVIDIA UNIX aarch64 Kernel Module  580.65.06  Sun Jul 27 2025\n",
           "580.65.06");
    expect("garbage without a version\n", "none");
    expect("", "none");
    return gs_test_result("test_driver_version");
}

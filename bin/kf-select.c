/* STUB: replaced by the real program. */
#include "record.h"
int main(int argc, char **argv) { (void)argc; kf_init(argv[0]); kf_die(2, "not built yet"); }

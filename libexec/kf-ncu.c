/* kf-ncu: kf-wrap ncu's command, built into libexec/kf/ (man kf-wrap(1),
 * "The ncu chain"): all of it is lib/ncu/ncu_chain.c and its parts. */
#include "err.h"
#include "ncu.h"

int
main(int argc, char **argv)
{
	kf_init("kf-ncu");
	return ncu_chain_main(argc, argv);
}

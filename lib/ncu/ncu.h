/* kf: names shared by the Nsight Compute reader and its feedback. */
#ifndef KF_NCU_H
#define KF_NCU_H

/* Section display names, as metric rows carry them. */
#define NCU_SOL "GPU Speed Of Light Throughput"
#define NCU_LAUNCH "Launch Statistics"
#define NCU_OCCUPANCY "Occupancy"

#endif

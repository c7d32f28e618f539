/* The TCP ports of the held program. ncu --mode launch holds each process
 * of the program that reaches CUDA on its own port of a block (two worker
 * processes on the H200: PORT and PORT+1), and attaches only within a
 * range of two or more ports (with --max-connections 1 it found no process
 * on the H200). Which ports listen is read from Linux's /proc/net/tcp and
 * tcp6; a block is claimed against other runs of kf-ncu on the machine by
 * the directory /tmp/kf-ncu-port.PORT (mkdir is atomic; it holds the
 * claimer's PID, and the directory of a run that is gone is taken over). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lines.h"
#include "mem.h"
#include "ncu_chain.h"
#include "path.h"

#define PORT_LO 50000
#define PORT_SPAN 8000
#define TRIES 16
#define LISTEN "0A"

static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };

int
ncu_ports_readable(void)
{
	return access(tables[0], R_OK) == 0;
}

/* One line of a table: "sl local_address rem_address st ...": the local
 * port and whether it listens; 0 for the header or a line not read. */
static int
table_line(char *s, int *port, int *listening)
{
	char *f[4], *save = NULL, *colon;
	int i;

	for (i = 0; i < 4; i++)
		if ((f[i] = strtok_r(i ? NULL : s, " \t", &save)) == NULL)
			return 0;
	if (f[0][strlen(f[0]) - 1] != ':' || (colon = strrchr(f[1], ':')) == NULL)
		return 0;
	*port = (int)strtol(colon + 1, NULL, 16);
	*listening = strcmp(f[3], LISTEN) == 0;
	return 1;
}

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int
ncu_ports_used(int lo, int hi, int listening, int *ports, int max)
{
	char seen[NCU_NPORTS * 2];
	struct kf_lines l;
	int i, port, lis, n = 0, found = 0;

	memset(seen, 0, sizeof seen);
	for (i = 0; i < 2; i++) {
		if (kf_lines_open(&l, tables[i]) != 0) {
			if (i == 0)
				return -1;
			continue;
		}
		while (kf_lines_next(&l) > 0)
			if (table_line(l.s, &port, &lis) && port >= lo && port <= hi &&
			    (!listening || lis) && port - lo < (int)sizeof seen && !seen[port - lo]) {
				seen[port - lo] = 1;
				found++;
			}
		kf_lines_close(&l);
	}
	for (i = 0; i <= hi - lo && i < (int)sizeof seen; i++)
		if (seen[i] && n < max)
			ports[n++] = lo + i;
	qsort(ports, (size_t)n, sizeof *ports, cmp_int);
	return found;
}

/* The directory of a claim whose owner is gone is taken over. */
static void
stale_claim(const char *dir)
{
	char *pidf = kf_path_join(dir, "pid");
	FILE *f = fopen(pidf, "r");
	long owner = 0;

	if (f && fscanf(f, "%ld", &owner) == 1 && owner > 0 && kill((pid_t)owner, 0) != 0 &&
	    errno == ESRCH) {
		unlink(pidf);
		rmdir(dir);
	}
	if (f)
		fclose(f);
	free(pidf);
}

int
ncu_ports_claim(struct ncu_chain *c)
{
	long span = PORT_SPAN / NCU_NPORTS, me = (long)getpid();
	int i, port, dummy;
	char *dir, *pidf;
	FILE *f;

	for (i = 0; i < TRIES; i++) {
		port = PORT_LO + NCU_NPORTS * (int)((me + i * 263) % span);
		dir = xasprintf("/tmp/kf-ncu-port.%d", port);
		stale_claim(dir);
		if (ncu_ports_used(port, port + NCU_NPORTS - 1, 0, &dummy, 0) == 0 &&
		    mkdir(dir, 0777) == 0) {
			pidf = kf_path_join(dir, "pid");
			if ((f = fopen(pidf, "w")) != NULL) {
				fprintf(f, "%ld\n", me);
				fclose(f);
			}
			free(pidf);
			c->port = port;
			c->port_lock = dir;
			return 0;
		}
		free(dir);
	}
	return -1;
}

void
ncu_ports_release(struct ncu_chain *c)
{
	char *pidf;

	if (c->port_lock == NULL)
		return;
	pidf = kf_path_join(c->port_lock, "pid");
	unlink(pidf);
	rmdir(c->port_lock);
	free(pidf);
	free(c->port_lock);
	c->port_lock = NULL;
}

/* kf-mcp: kf for agents, a Model Context Protocol server on standard input
 * and output. One JSON-RPC message a line; each tool call runs kf's
 * pipeline as child processes in a process group of its own, several at
 * once, read in one poll loop; standard output carries only protocol
 * messages, the stages' standard error is the server's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "opt.h"
#include "path.h"
#include "pipeline.h"
#include "proc.h"
#include "profiler.h"
#include "record.h"
#include "rpc.h"
#include "rundir.h"
#include "saved.h"
#include "select.h"
#include "wrap.h"

static const char usage[] = "[--max-line SIZE]";
static const char help[] =
	"An MCP (Model Context Protocol) server on standard input and output:\n"
	"JSON-RPC 2.0, one message a line. Tools: profile, reread, compare, profilers.\n"
	"      --max-line SIZE  the longest message read (8M; K, M, G)\n"
	"  -h, --help           print this help\n"
	"      --version        print the version\n";

/* Newest first: an unknown version is answered with the first. */
static const char *const versions[] = { "2025-06-18", "2025-03-26", "2024-11-05", NULL };

/* The tools' schemas: what tools/list publishes is what arguments are
 * checked against (kf_schema_check). */
#define FB_PROPS \
	"\"max_chars\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000000," \
	"\"description\":\"keep the feedback text within this many characters\"}," \
	"\"gpu\":{\"type\":\"string\",\"minLength\":1,\"description\":" \
	"\"use this GPU's roofs (H200, A100, ...), whatever the record says\"}"
#define RESULT_SCHEMA \
	"{\"type\":\"object\",\"required\":[\"id\",\"output_dir\",\"status\",\"analysis\"]," \
	"\"properties\":{\"id\":{\"type\":\"string\"},\"profiler\":{\"type\":\"string\"}," \
	"\"output_dir\":{\"type\":\"string\",\"description\":\"where the profile is: " \
	"give it to reread, compare or profile's baseline\"}," \
	"\"baseline\":{\"type\":\"string\"}," \
	"\"status\":{\"type\":\"integer\",\"description\":\"kf's exit status: 0 clean, " \
	"1 a stage marked the record with an error\"}," \
	"\"analysis\":{\"type\":\"object\",\"description\":\"kf-feedback's analysis " \
	"(man 7 kf): focus, ranking, diagnosis, advice, rules; delta with a baseline\"}}}"

static const char tools_json[] = "["
	"{\"name\":\"profile\",\"title\":\"Profile a GPU program\","
	"\"description\":\"Runs a program under a GPU profiler (Nsight Compute ncu, Intel "
	"unitrace or VTune, kf's CUPTI tracer) through kf's pipeline and answers the "
	"feedback text, the analysis as data and the output directory, for reread, compare "
	"or a later profile's baseline.\","
	"\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
	"\"required\":[\"command\"],\"properties\":{"
	"\"command\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"string\"},"
	"\"description\":\"the program and its arguments, as argv (no shell)\"},"
	"\"profiler\":{\"type\":\"string\",\"description\":\"default: kf-select's choice "
	"for language and arch\"},"
	"\"language\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the program's "
	"language: cuda (default), sycl, ocl, pytorch, triton\"},"
	"\"arch\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the GPU's "
	"architecture or name (H200, Hopper, bmg): picks the profiler for pytorch and triton\"},"
	"\"cwd\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the working "
	"directory (default: the server's)\"},"
	"\"id\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the job's name "
	"(default: the command's name)\"},"
	"\"top\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":"
	"\"ncu: time every launch, then profile in detail the K kernels with the most GPU time\"},"
	"\"sampled_source\":{\"type\":\"boolean\",\"description\":\"ncu: leave out the count "
	"of each instruction's executions (a replay pass that runs the kernel patched, hundreds "
	"of times its own time): the warp-stall samples and memory counts stay, the divergence "
	"finding goes\"},"
	"\"timeout\":{\"type\":\"number\",\"minimum\":0,\"description\":\"seconds the run "
	"may take (kf-run's default 300; 0: no limit)\"},"
	"\"inactivity\":{\"type\":\"number\",\"minimum\":0,\"description\":\"seconds the "
	"run may go without output (kf-run's default 100; 0: no limit)\"},"
	"\"output_dir\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the run's "
	"directory (default: kf-out/mcp/ID under cwd; a used one gets .2, .3, ...)\"},"
	"\"baseline\":{\"type\":\"string\",\"minLength\":1,\"description\":\"an earlier "
	"output directory: the feedback says what changed against it\"},"
	FB_PROPS "}},"
	"\"outputSchema\":" RESULT_SCHEMA "},"
	"{\"name\":\"reread\",\"title\":\"Re-read a saved profile\","
	"\"description\":\"Reads a saved output directory (profile's, or kf's kf-out/ID, "
	"or one pass such as ncu.000) or an Nsight Compute report (.ncu-rep) again with "
	"the current build: the feedback text and the analysis.\","
	"\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
	"\"required\":[\"path\"],\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the output "
	"directory or .ncu-rep file\"},"
	"\"cwd\":{\"type\":\"string\",\"minLength\":1,\"description\":\"what a relative "
	"path is relative to (default: the server's directory)\"},"
	FB_PROPS "}},"
	"\"outputSchema\":" RESULT_SCHEMA "},"
	"{\"name\":\"compare\",\"title\":\"Compare two profiles\","
	"\"description\":\"Before and after a change: re-reads both output directories and "
	"says what the change did (kf-feedback --baseline): the speedup in GPU time, what "
	"moved, never a change inside the measured noise.\","
	"\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
	"\"required\":[\"before\",\"after\"],\"properties\":{"
	"\"before\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the output "
	"directory of the earlier run\"},"
	"\"after\":{\"type\":\"string\",\"minLength\":1,\"description\":\"the output "
	"directory of the run after the change\"},"
	"\"cwd\":{\"type\":\"string\",\"minLength\":1,\"description\":\"what relative "
	"paths are relative to (default: the server's directory)\"},"
	FB_PROPS "}},"
	"\"outputSchema\":" RESULT_SCHEMA "},"
	"{\"name\":\"profilers\",\"title\":\"The profilers and GPUs here\","
	"\"description\":\"Which profilers and GPUs this machine has, and why a profiler "
	"cannot be used.\","
	"\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}},"
	"\"outputSchema\":{\"type\":\"object\",\"required\":[\"profilers\",\"gpus\"],"
	"\"properties\":{\"profilers\":{\"type\":\"array\"},\"gpus\":{\"type\":\"array\"},"
	"\"worker\":{\"type\":\"object\"}}}}"
	"]";

enum { T_PROFILE, T_REREAD, T_COMPARE, T_PROFILERS };
static const char *const tool_names[] = { "profile", "reread", "compare", "profilers", NULL };

enum { MAX_STAGES = 5, TAIL = 4096, GIVE_UP = 10 };
#define MAX_OUT ((size_t)256 << 20)

/* One tools/call in flight: its steps run one pipeline each. */
struct job {
	cJSON *id, *token, *args;
	int tool, step, cancelled, reported;
	pid_t pids[MAX_STAGES];
	int st[MAX_STAGES], npids, alive, status;
	int out, err;
	struct buf outb;
	struct kf_tail errt;
	int too_big;
	double started, next_tick, kill_at;
	long ticks;
	char *cwd, *rundir, *jobid, *before, *after, *tmpdir, *profiler;
	struct job *next;
};

static struct job *jobs;
static cJSON *tools;
static size_t max_line = (size_t)8 << 20;
static volatile sig_atomic_t stop_sig;
static int out_failed;

/* A growing argv of strings it owns. */
struct words {
	char **v;
	int n;
};

static void
push(struct words *w, const char *s)
{
	w->v = xreallocarray(w->v, (size_t)w->n + 2, sizeof *w->v);
	w->v[w->n++] = xstrdup(s);
	w->v[w->n] = NULL;
}

static void
pushf(struct words *w, const char *fmt, double d)
{
	char s[64];

	snprintf(s, sizeof s, fmt, d);
	push(w, s);
}

static void
words_free(struct words *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

static void
send(cJSON *msg)
{
	if (!out_failed && kf_rpc_send(stdout, msg) != 0) {
		kf_warn("standard output:");
		out_failed = 1;
	}
	cJSON_Delete(msg);
}

static void
send_error(const cJSON *id, int code, const char *msg)
{
	send(kf_rpc_error(id, code, "%s", msg));
}

/* A tools/call result: text, structured content (may be NULL), isError. */
static void
send_result(struct job *j, const char *text, cJSON *sc, int is_error)
{
	cJSON *r = cJSON_CreateObject(), *c = cJSON_CreateArray(), *t = cJSON_CreateObject();

	kf_set_str(t, "type", "text");
	kf_set_str(t, "text", text);
	cJSON_AddItemToArray(c, t);
	kf_set(r, "content", c);
	if (sc)
		kf_set(r, "structuredContent", sc);
	kf_set(r, "isError", cJSON_CreateBool(is_error));
	send(kf_rpc_result(j->id, r));
	j->reported = 1;
}

static void
fail_job(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
fail_job(struct job *j, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kf_warn("%s", b.s);
	send_result(j, b.s, NULL, 1);
	buf_free(&b);
}

/* Paths. */

/* path against dir (NULL: as it is), made absolute when it exists. */
static char *
resolve(const char *dir, const char *path)
{
	char *p = dir ? kf_path_join(dir, path) : xstrdup(path), *r;

	if ((r = realpath(p, NULL)) != NULL) {
		free(p);
		return r;
	}
	return p;
}

/* program found on PATH (a name with '/': itself). */
static char *
on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	char *f;
	int n;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	for (p = path ? path : "/usr/bin:/bin"; ; p = e + 1) {
		e = strchr(p, ':');
		n = e ? (int)(e - p) : (int)strlen(p);
		/* An empty entry is the working directory. */
		f = n ? xasprintf("%.*s/%s", n, p, name) : xasprintf("./%s", name);
		if (access(f, X_OK) == 0 && kf_is_file(f))
			return f;
		free(f);
		if (e == NULL)
			return NULL;
	}
}

/* A descriptor reading s, from a file already gone. -1 with errno. */
static int
memfile(const char *s, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char *name = xasprintf("%s/kf-mcp.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(name), e;

	if (fd >= 0) {
		unlink(name);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		if (write(fd, s, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0) {
			e = errno;
			close(fd);
			errno = e;
			fd = -1;
		}
	}
	free(name);
	return fd;
}

/* Running a step: one pipeline, its stdout read into outb. */

static int
start_step(struct job *j, struct words *cmds, int n, int forward, int in)
{
	char *const *v[MAX_STAGES];
	int o[2], e[2], i, started;

	if (pipe2(o, O_CLOEXEC) != 0) {
		kf_warn("pipe:");
		return -1;
	}
	if (pipe2(e, O_CLOEXEC) != 0) {
		kf_warn("pipe:");
		close(o[0]);
		close(o[1]);
		return -1;
	}
	for (i = 0; i < n; i++)
		v[i] = cmds[i].v;
	started = kf_pipeline_spawn(v, n, forward, in, o[1], e[1], j->pids);
	close(o[1]);
	close(e[1]);
	if (in >= 0)
		close(in);
	for (i = 0; i < n; i++)
		words_free(&cmds[i]);
	j->npids = j->alive = started;
	memset(j->st, 0, sizeof j->st);
	j->out = o[0];
	j->err = e[0];
	fcntl(j->out, F_SETFL, O_NONBLOCK);
	fcntl(j->err, F_SETFL, O_NONBLOCK);
	buf_reset(&j->outb);
	j->too_big = 0;
	if (started < n) {
		if (started > 0)
			killpg(j->pids[0], SIGTERM);
		return -1;
	}
	return 0;
}

/* kf's own stage: its path next to kf-mcp, then words. */
static void
stage(struct words *w, const char *name)
{
	char *p = kf_sibling(name);

	push(w, p);
	free(p);
}

static void
fb_options(struct words *w, const cJSON *args)
{
	const cJSON *v;

	if ((v = cJSON_GetObjectItemCaseSensitive(args, "max_chars")) != NULL) {
		push(w, "--max-chars");
		pushf(w, "%.0f", v->valuedouble);
	}
	if (kf_str(args, "gpu")) {
		push(w, "--gpu");
		push(w, kf_str(args, "gpu"));
	}
}

/* kf-read | kf-collate | kf-feedback on the saved profile in dir; with a
 * baseline file, against it. */
static int
start_reread(struct job *j, const char *dir, const char *baseline)
{
	struct words c[3] = {{0}};
	struct buf recs = {0}, err = {0};
	int fd, ret;

	if (kf_saved_replay(dir, &j->jobid, NULL, &recs, &err) != 0) {
		fail_job(j, "%s", err.s);
		buf_free(&err);
		return -1;
	}
	fd = memfile(recs.s, recs.len);
	buf_free(&recs);
	if (fd < 0) {
		fail_job(j, "kf-mcp: a temporary file: %s", strerror(errno));
		return -1;
	}
	stage(&c[0], "kf-read");
	stage(&c[1], "kf-collate");
	stage(&c[2], "kf-feedback");
	push(&c[2], "--no-collated");
	fb_options(&c[2], j->args);
	if (baseline) {
		push(&c[2], "--baseline");
		push(&c[2], baseline);
	}
	ret = start_step(j, c, 3, 3, fd);
	if (ret != 0)
		fail_job(j, "kf-mcp: cannot start kf-read | kf-collate | kf-feedback");
	return ret;
}

/* The run directory for a profile or an import: free, absolute. */
static int
make_rundir(struct job *j, const char *given)
{
	char *name = kf_path_component(j->jobid);
	char *base = given ? kf_path_join(j->cwd, given) :
	    xasprintf("%s/kf-out/mcp/%s", j->cwd, name);
	char *d = kf_run_dir(base);

	free(name);

	if (d == NULL) {
		fail_job(j, "%s: %s", base, strerror(errno));
		free(base);
		return -1;
	}
	free(base);
	j->rundir = resolve(NULL, d);
	free(d);
	return 0;
}

static int
start_kf(struct job *j, struct words *kf)
{
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC), ret;

	ret = start_step(j, kf, 1, 1, in);
	if (ret != 0)
		fail_job(j, "kf-mcp: cannot start kf");
	return ret;
}

/* kf-select's choice for profile's arguments: the profiler, or NULL with
 * kf-select's reason in err (bad arguments: -32602). */
static const char *
profile_choice(const cJSON *a, struct buf *err)
{
	struct kf_choice ch;
	const char *kind;

	if (kf_select(kf_str(a, "language") ? kf_str(a, "language") : "cuda", NULL,
	    kf_str(a, "arch"), kf_str(a, "profiler"), &ch, &kind, err) != 0)
		return NULL;
	return ch.profiler->name;
}

static int
start_profile(struct job *j)
{
	const cJSON *a = j->args, *w;
	struct words kf = {0};
	struct buf err = {0};

	j->profiler = xstrdup(profile_choice(a, &err));
	buf_free(&err);
	j->jobid = xstrdup(kf_str(a, "id") ? kf_str(a, "id") :
	    kf_base_name(cJSON_GetArrayItem(kf_arr(a, "command"), 0)->valuestring));
	if (make_rundir(j, kf_str(a, "output_dir")) != 0)
		return -1;
	stage(&kf, "kf");
	push(&kf, "--json");
	push(&kf, "--quiet");
	push(&kf, "--no-collated");
	fb_options(&kf, a);
	if ((w = cJSON_GetObjectItemCaseSensitive(a, "timeout")) != NULL) {
		push(&kf, "--timeout");
		pushf(&kf, "%.17g", w->valuedouble);
	}
	if ((w = cJSON_GetObjectItemCaseSensitive(a, "inactivity")) != NULL) {
		push(&kf, "--inactivity");
		pushf(&kf, "%.17g", w->valuedouble);
	}
	push(&kf, j->profiler);
	push(&kf, "--output-dir");
	push(&kf, j->rundir);
	push(&kf, "--id");
	push(&kf, j->jobid);
	if ((w = cJSON_GetObjectItemCaseSensitive(a, "top")) != NULL) {
		push(&kf, "--top");
		pushf(&kf, "%.0f", w->valuedouble);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "sampled_source")))
		push(&kf, "--sampled-source");
	if (kf_str(a, "language")) {
		push(&kf, "--language");
		push(&kf, kf_str(a, "language"));
	}
	push(&kf, "--");
	cJSON_ArrayForEach(w, kf_arr(a, "command"))
		push(&kf, w->valuestring);
	return start_kf(j, &kf);
}

static int
start_import(struct job *j, const char *file)
{
	struct words kf = {0};
	const char *base = kf_base_name(file);

	j->profiler = xstrdup("ncu");
	j->jobid = xstrndup(base, strlen(base) - strlen(".ncu-rep"));
	if (j->jobid[0] == '\0') {
		free(j->jobid);
		j->jobid = xstrdup("report");
	}
	if (make_rundir(j, NULL) != 0)
		return -1;
	stage(&kf, "kf");
	push(&kf, "--json");
	push(&kf, "--quiet");
	push(&kf, "--no-collated");
	fb_options(&kf, j->args);
	push(&kf, "ncu");
	push(&kf, "--output-dir");
	push(&kf, j->rundir);
	push(&kf, "--id");
	push(&kf, j->jobid);
	push(&kf, "--import");
	push(&kf, file);
	return start_kf(j, &kf);
}

static int
start_profilers(struct job *j)
{
	static const char probe[] = "{\"id\":\"profilers\",\"argv\":[\"true\"]}\n";
	struct words c = {0};
	int fd = memfile(probe, sizeof probe - 1);

	if (fd < 0) {
		fail_job(j, "kf-mcp: a temporary file: %s", strerror(errno));
		return -1;
	}
	stage(&c, "kf-run");
	push(&c, "-q");
	if (start_step(j, &c, 1, 1, fd) != 0) {
		fail_job(j, "kf-mcp: cannot start kf-run");
		return -1;
	}
	return 0;
}

/* The before record of a comparison, kf-feedback's, in a file of the job's
 * own: its path. */
static char *
save_before(struct job *j)
{
	const char *tmp = getenv("TMPDIR");
	char *f;
	FILE *fp;

	if (j->tmpdir == NULL) {
		j->tmpdir = xasprintf("%s/kf-mcp.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (mkdtemp(j->tmpdir) == NULL) {
			free(j->tmpdir);
			j->tmpdir = NULL;
			return NULL;
		}
	}
	f = kf_path_join(j->tmpdir, "before.json");
	if ((fp = fopen(f, "w")) == NULL || fwrite(j->outb.s, 1, j->outb.len, fp) != j->outb.len) {
		if (fp)
			fclose(fp);
		free(f);
		return NULL;
	}
	if (fclose(fp) != 0) {
		free(f);
		return NULL;
	}
	return f;
}

/* The first record of what the step wrote, or NULL. */
static cJSON *
first_record(struct job *j)
{
	char *nl;
	cJSON *rec;

	if (j->outb.len == 0)
		return NULL;
	nl = memchr(j->outb.s, '\n', j->outb.len);
	rec = kf_json_parse(j->outb.s, nl ? (size_t)(nl - j->outb.s) : j->outb.len);
	if (rec && !cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		rec = NULL;
	}
	return rec;
}

/* What went wrong when no record came: the status and kf's own words. */
static void
no_record(struct job *j, const char *what)
{
	char *tail = kf_tail_str(&j->errt);
	size_t n = strlen(tail);

	while (n > 0 && tail[n - 1] == '\n')
		tail[--n] = '\0';
	if (j->too_big)
		fail_job(j, "%s wrote more than %zu MiB: not read", what, MAX_OUT >> 20);
	else if (n > 0)
		fail_job(j, "%s exited with status %d: %s", what, j->status, tail);
	else
		fail_job(j, "%s exited with status %d and wrote no record", what, j->status);
	free(tail);
}

/* s into t, every from in it made to. */
static void
put_replaced(struct buf *t, const char *s, const char *from, const char *to)
{
	const char *p;
	size_t n = strlen(from);

	while (n > 0 && (p = strstr(s, from)) != NULL) {
		buf_add(t, s, (size_t)(p - s));
		buf_puts(t, to);
		s = p + n;
	}
	buf_puts(t, s);
}

/* The answer for a final record. A comparison names the before's folder,
 * not the job's own file of it, gone when the job is. */
static void
answer(struct job *j, cJSON *rec, const char *dir)
{
	cJSON *sc = cJSON_CreateObject(), *an, *delta;
	struct buf t = {0};
	const char *fb = kf_str(rec, "feedback");
	char *tmpf = j->tmpdir ? kf_path_join(j->tmpdir, "before.json") : NULL;

	if (tmpf)
		put_replaced(&t, fb ? fb : "", tmpf, j->before);
	else
		buf_puts(&t, fb ? fb : "");
	delta = (cJSON *)kf_obj(kf_obj(rec, "analysis"), "delta");
	if (tmpf && kf_str(delta, "baseline") && strcmp(kf_str(delta, "baseline"), tmpf) == 0)
		kf_set_str(delta, "baseline", j->before);
	free(tmpf);
	if (t.len > 0 && t.s[t.len - 1] != '\n')
		buf_putc(&t, '\n');
	buf_printf(&t, "\nOutput directory: %s\n", dir);
	if (j->before)
		buf_printf(&t, "Compared with: %s\n", j->before);
	kf_set_str(sc, "id", kf_str(rec, "id") ? kf_str(rec, "id") : "");
	if (kf_str(rec, "profiler"))
		kf_set_str(sc, "profiler", kf_str(rec, "profiler"));
	kf_set_str(sc, "output_dir", dir);
	if (j->before)
		kf_set_str(sc, "baseline", j->before);
	kf_set_num(sc, "status", j->status);
	an = cJSON_DetachItemFromObjectCaseSensitive(rec, "analysis");
	kf_set(sc, "analysis", cJSON_IsObject(an) ? an : cJSON_CreateObject());
	if (!cJSON_IsObject(an))
		cJSON_Delete(an);
	send_result(j, t.s, sc, j->status != 0);
	buf_free(&t);
}

static void
answer_profilers(struct job *j, cJSON *rec)
{
	const cJSON *w = kf_obj(rec, "worker"), *g;
	const char *vendor = kf_str(w, "gpu_vendor"), *gpu = kf_str(w, "gpu_name");
	const struct kf_profiler *const *p;
	cJSON *sc = cJSON_CreateObject(), *list = cJSON_CreateArray(), *o;
	struct buf t = {0}, why = {0};
	char *path;

	for (p = kf_profilers; *p; p++) {
		buf_reset(&why);
		/* The tracer is kf's own library (lib/trace/trace.h's TRACE_LIB). */
		if (strcmp((*p)->name, "trace") == 0) {
			path = kf_libexec_file("libkftrace.so");
			if (path == NULL)
				buf_puts(&why, "kf's tracer libkftrace.so is not built: make builds "
				    "it where CUDA's CUPTI is (CUDA_HOME)");
		} else if ((path = on_path((*p)->name)) == NULL)
			buf_printf(&why, "%s is not on PATH", (*p)->name);
		if (why.len == 0 && (vendor == NULL || strcmp(vendor, (*p)->vendor) != 0)) {
			if (vendor)
				buf_printf(&why, "it profiles %s GPUs and the GPU here is %s's (%s)",
				    (*p)->vendor, vendor, gpu ? gpu : "unnamed");
			else
				buf_printf(&why, "it profiles %s GPUs and kf-run found no GPU here "
				    "(nvidia-smi, then the DRM devices in sysfs)", (*p)->vendor);
		}
		o = cJSON_CreateObject();
		kf_set_str(o, "name", (*p)->name);
		kf_set_str(o, "vendor", (*p)->vendor);
		kf_set(o, "path", path ? cJSON_CreateString(path) : cJSON_CreateNull());
		kf_set(o, "available", cJSON_CreateBool(why.len == 0));
		kf_set(o, "why", why.len ? cJSON_CreateString(why.s) : cJSON_CreateNull());
		cJSON_AddItemToArray(list, o);
		if (why.len)
			buf_printf(&t, "%s: missing: %s\n", (*p)->name, why.s);
		else
			buf_printf(&t, "%s: available (%s)\n", (*p)->name, path);
		free(path);
	}
	kf_set(sc, "profilers", list);
	g = kf_arr(w, "gpus");
	kf_set(sc, "gpus", g ? cJSON_Duplicate(g, 1) : cJSON_CreateArray());
	if (cJSON_GetArraySize(g) == 0)
		buf_puts(&t, "GPUs: none found\n");
	else {
		buf_puts(&t, "GPUs:");
		cJSON_ArrayForEach(o, g)
			if (cJSON_IsString(o))
				buf_printf(&t, " %s%s", o->valuestring, o->next ? "," : "");
		buf_putc(&t, '\n');
	}
	if (w)
		kf_set(sc, "worker", cJSON_Duplicate(w, 1));
	t.s[--t.len] = '\0';	/* the last line's LF */
	send_result(j, t.s, sc, 0);
	buf_free(&t);
	buf_free(&why);
}

/* A step ended (not cancelled): answer, or start the next one. */
static void
step_done(struct job *j)
{
	cJSON *rec = first_record(j);
	char *f, *kfj;
	FILE *fp;

	switch (j->tool * 10 + j->step) {
	case T_PROFILE * 10 + 0:
		if (rec == NULL) {
			no_record(j, "kf");
			break;
		}
		/* Saved beside the passes: reread and compare take the worker
		 * from it. */
		kfj = kf_path_join(j->rundir, KF_SAVED_RECORD);
		if ((fp = fopen(kfj, "w")) == NULL ||
		    fwrite(j->outb.s, 1, j->outb.len, fp) != j->outb.len || fclose(fp) != 0)
			kf_warn("%s:", kfj);
		free(kfj);
		if (j->before == NULL) {
			answer(j, rec, j->rundir);
			break;
		}
		j->after = xstrdup(j->rundir);
		j->step = 1;
		start_reread(j, j->before, NULL);
		break;
	case T_REREAD * 10 + 0:
		if (rec == NULL)
			no_record(j, j->rundir ? "kf" : "kf-read | kf-collate | kf-feedback");
		else
			answer(j, rec, j->rundir ? j->rundir : j->after);
		break;
	case T_COMPARE * 10 + 0:
	case T_PROFILE * 10 + 1:
		if (rec == NULL) {
			no_record(j, "the before's kf-read | kf-collate | kf-feedback");
			break;
		}
		if ((f = save_before(j)) == NULL) {
			fail_job(j, "kf-mcp: cannot keep the before record: %s", strerror(errno));
			break;
		}
		j->step++;
		start_reread(j, j->after, f);
		free(f);
		break;
	case T_COMPARE * 10 + 1:
	case T_PROFILE * 10 + 2:
		if (rec == NULL)
			no_record(j, "kf-read | kf-collate | kf-feedback --baseline");
		else
			answer(j, rec, j->after);
		break;
	case T_PROFILERS * 10 + 0:
		if (rec == NULL)
			no_record(j, "kf-run");
		else
			answer_profilers(j, rec);
		break;
	}
	cJSON_Delete(rec);
}

static void
job_free(struct job *j)
{
	char *f;

	if (j->out >= 0)
		close(j->out);
	if (j->err >= 0)
		close(j->err);
	if (j->tmpdir) {
		f = kf_path_join(j->tmpdir, "before.json");
		unlink(f);
		free(f);
		rmdir(j->tmpdir);
	}
	cJSON_Delete(j->id);
	cJSON_Delete(j->token);
	cJSON_Delete(j->args);
	buf_free(&j->outb);
	kf_tail_free(&j->errt);
	free(j->cwd);
	free(j->rundir);
	free(j->jobid);
	free(j->before);
	free(j->after);
	free(j->tmpdir);
	free(j->profiler);
	free(j);
}

static void
cancel(struct job *j, double now)
{
	if (j->cancelled)
		return;
	j->cancelled = 1;
	j->kill_at = now + GIVE_UP;
	/* kf passes SIGTERM to kf-wrap and kf-run, which ends the program's
	 * own group; the later stages finish with what came. */
	if (j->alive > 0)
		killpg(j->pids[0], SIGTERM);
}

/* Starting a call. */

static char *
call_dir(const cJSON *args, struct buf *err)
{
	const char *cwd = kf_str(args, "cwd");
	char here[PATH_MAX];

	if (cwd == NULL)
		return xstrdup(getcwd(here, sizeof here) ? here : ".");
	if (!kf_is_dir(cwd)) {
		buf_printf(err, "cwd %s: %s", cwd, access(cwd, F_OK) == 0 ?
		    "not a directory" : strerror(errno));
		return NULL;
	}
	return resolve(NULL, cwd);
}

static int
start_job(struct job *j)
{
	const cJSON *a = j->args;
	struct buf err = {0};
	const char *path;
	size_t n;

	if ((j->cwd = call_dir(a, &err)) == NULL) {
		fail_job(j, "%s", err.s);
		buf_free(&err);
		return -1;
	}
	switch (j->tool) {
	case T_PROFILE:
		if (kf_str(a, "baseline"))
			j->before = resolve(j->cwd, kf_str(a, "baseline"));
		if (j->before && !kf_is_dir(j->before)) {
			fail_job(j, "baseline %s: %s", j->before, access(j->before, F_OK) == 0 ?
			    "not a directory" : strerror(errno));
			return -1;
		}
		return start_profile(j);
	case T_REREAD:
		path = kf_str(a, "path");
		n = strlen(path);
		j->after = resolve(j->cwd, path);
		if (n > 8 && strcmp(path + n - 8, ".ncu-rep") == 0)
			return start_import(j, j->after);
		return start_reread(j, j->after, NULL);
	case T_COMPARE:
		j->before = resolve(j->cwd, kf_str(a, "before"));
		j->after = resolve(j->cwd, kf_str(a, "after"));
		{
			/* One id for both, the after's, so that kf-feedback
			 * pairs them; the worker of each its own. */
			struct buf recs = {0};
			if (kf_saved_replay(j->after, &j->jobid, NULL, &recs, &err) != 0) {
				fail_job(j, "after: %s", err.s);
				buf_free(&err);
				buf_free(&recs);
				return -1;
			}
			buf_free(&recs);
		}
		return start_reread(j, j->before, NULL);
	default:
		return start_profilers(j);
	}
}

static struct job *
find_job(const cJSON *id)
{
	struct job *j;

	for (j = jobs; j; j = j->next)
		if (!j->cancelled && !j->reported && kf_rpc_id_equal(j->id, id))
			return j;
	return NULL;
}

static void
tools_call(const cJSON *id, const cJSON *params)
{
	const char *name = kf_str(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(kf_obj(params, "_meta"),
	    "progressToken");
	const cJSON *t;
	struct buf err = {0};
	struct job *j;
	int i;

	if (name == NULL) {
		send_error(id, KF_RPC_PARAMS, "tools/call: params.name: no tool named "
		    "(profile, reread, compare, profilers)");
		return;
	}
	for (i = 0; tool_names[i] && strcmp(tool_names[i], name) != 0; i++)
		;
	if (tool_names[i] == NULL) {
		send(kf_rpc_error(id, KF_RPC_PARAMS, "tools/call: no tool '%s' (profile, "
		    "reread, compare, profilers)", name));
		return;
	}
	if (args && !cJSON_IsObject(args)) {
		send_error(id, KF_RPC_PARAMS, "tools/call: params.arguments: not an object");
		return;
	}
	t = cJSON_GetArrayItem(tools, i);
	if (args && kf_schema_check(args, kf_obj(t, "inputSchema"), "arguments", &err) != 0) {
		send(kf_rpc_error(id, KF_RPC_PARAMS, "%s: %s", name, err.s));
		buf_free(&err);
		return;
	}
	if (!args && kf_arr(kf_obj(t, "inputSchema"), "required") &&
	    cJSON_GetArraySize(kf_arr(kf_obj(t, "inputSchema"), "required")) > 0) {
		send(kf_rpc_error(id, KF_RPC_PARAMS, "%s: no arguments: it needs \"%s\"", name,
		    cJSON_GetArrayItem(kf_arr(kf_obj(t, "inputSchema"), "required"), 0)->valuestring));
		return;
	}
	if (i == T_PROFILE && args && profile_choice(args, &err) == NULL) {
		send(kf_rpc_error(id, KF_RPC_PARAMS, "profile: kf-select: %s", err.s));
		buf_free(&err);
		return;
	}
	if (find_job(id)) {
		send_error(id, KF_RPC_INVALID, "this id is already a call in flight");
		return;
	}
	j = xcalloc(1, sizeof *j);
	j->out = j->err = -1;
	j->tool = i;
	j->id = cJSON_Duplicate(id, 1);
	j->token = tok && kf_rpc_id_ok(tok) ? cJSON_Duplicate(tok, 1) : NULL;
	j->args = args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	j->started = kf_now();
	j->next_tick = j->started + 1;
	kf_tail_init(&j->errt, TAIL);
	j->next = jobs;
	jobs = j;
	start_job(j);
}

/* The methods. */

static void
initialize(const cJSON *id, const cJSON *params)
{
	const char *v = kf_str(params, "protocolVersion");
	cJSON *r, *caps, *info;
	int i;

	if (v == NULL) {
		send_error(id, KF_RPC_PARAMS, "initialize: params.protocolVersion: not a string");
		return;
	}
	for (i = 0; versions[i] && strcmp(versions[i], v) != 0; i++)
		;
	r = cJSON_CreateObject();
	kf_set_str(r, "protocolVersion", versions[i] ? versions[i] : versions[0]);
	caps = cJSON_CreateObject();
	kf_set(caps, "tools", cJSON_CreateObject());
	kf_set(r, "capabilities", caps);
	info = cJSON_CreateObject();
	kf_set_str(info, "name", "kf-mcp");
	kf_set_str(info, "title", "kf: GPU profiling feedback");
	kf_set_str(info, "version", KF_VERSION);
	kf_set(r, "serverInfo", info);
	kf_set_str(r, "instructions", "profile runs a GPU program under ncu, unitrace, vtune "
	    "or kf's tracer and answers kf's feedback and its output_dir; compare two "
	    "output_dirs (or give profile a baseline) to see what a change did; profilers "
	    "says what this machine can profile.");
	send(kf_rpc_result(id, r));
}

static void
notification(const char *method, const cJSON *params)
{
	const cJSON *rid;
	struct job *j;

	if (strcmp(method, "notifications/cancelled") != 0)
		return;
	rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	if (kf_rpc_id_ok(rid) && (j = find_job(rid)) != NULL)
		cancel(j, kf_now());
}

static void
request(const cJSON *id, const char *method, const cJSON *params)
{
	if (params && !cJSON_IsObject(params)) {
		send(kf_rpc_error(id, KF_RPC_PARAMS, "%s: params: not an object", method));
		return;
	}
	if (strcmp(method, "initialize") == 0)
		initialize(id, params);
	else if (strcmp(method, "ping") == 0)
		send(kf_rpc_result(id, cJSON_CreateObject()));
	else if (strcmp(method, "tools/list") == 0) {
		cJSON *r = cJSON_CreateObject();
		kf_set(r, "tools", cJSON_Duplicate(tools, 1));
		send(kf_rpc_result(id, r));
	} else if (strcmp(method, "tools/call") == 0)
		tools_call(id, params);
	else
		send(kf_rpc_error(id, KF_RPC_METHOD, "no method '%s' (initialize, ping, "
		    "tools/list, tools/call)", method));
}

static void
message(const char *s, size_t n, long line)
{
	cJSON *m;
	const cJSON *id, *method, *params;
	const char *v;
	size_t stop = 0;

	if (n == strspn(s, " \t\r"))
		return;
	if ((m = kf_json_parse_stop(s, n, NULL, &stop)) == NULL) {
		send(kf_rpc_error(NULL, KF_RPC_PARSE, "line %ld: not JSON (at byte %zu)",
		    line, stop + 1));
		return;
	}
	if (!cJSON_IsObject(m)) {
		send(kf_rpc_error(NULL, KF_RPC_INVALID, "line %ld: %s", line, cJSON_IsArray(m) ?
		    "a batch (an array): send one message a line" : "not a JSON-RPC message (an object)"));
		cJSON_Delete(m);
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	method = cJSON_GetObjectItemCaseSensitive(m, "method");
	params = cJSON_GetObjectItemCaseSensitive(m, "params");
	v = kf_str(m, "jsonrpc");
	if (id && !kf_rpc_id_ok(id))
		send(kf_rpc_error(NULL, KF_RPC_INVALID, "line %ld: \"id\" is neither a string "
		    "nor a number", line));
	else if (v == NULL || strcmp(v, "2.0") != 0)
		send(kf_rpc_error(id, KF_RPC_INVALID, "line %ld: \"jsonrpc\" is not \"2.0\"", line));
	else if (method == NULL && id && (cJSON_GetObjectItemCaseSensitive(m, "result") ||
	    cJSON_GetObjectItemCaseSensitive(m, "error")))
		;	/* a response: kf-mcp asks nothing of the client */
	else if (!cJSON_IsString(method))
		send(kf_rpc_error(id, KF_RPC_INVALID, "line %ld: \"method\" is not a string", line));
	else if (id == NULL)
		notification(method->valuestring, params);
	else
		request(id, method->valuestring, params);
	cJSON_Delete(m);
}

/* The loop. */

static void
progress(struct job *j, double now)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(j->args, "timeout");
	cJSON *p;
	struct buf msg = {0};

	if (j->token == NULL || j->cancelled || j->reported || now < j->next_tick)
		return;
	j->ticks++;
	j->next_tick += 1;
	p = cJSON_CreateObject();
	kf_set(p, "progressToken", cJSON_Duplicate(j->token, 1));
	kf_set_num(p, "progress", (double)j->ticks);
	if (cJSON_IsNumber(t) && t->valuedouble > 0)
		kf_set_num(p, "total", t->valuedouble);
	buf_printf(&msg, "%s: %ld s", tool_names[j->tool], j->ticks);
	if (j->profiler && j->tool == T_PROFILE)
		buf_printf(&msg, " under %s", j->profiler);
	kf_set_str(p, "message", msg.s);
	buf_free(&msg);
	send(kf_rpc_notification("notifications/progress", p));
}

static void
read_out(struct job *j)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(j->out, chunk, sizeof chunk)) > 0) {
		if (j->outb.len + (size_t)n > MAX_OUT) {
			j->too_big = 1;
			continue;
		}
		buf_add(&j->outb, chunk, (size_t)n);
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(j->out);
		j->out = -1;
	}
}

static void
read_err(struct job *j)
{
	char chunk[8192];
	ssize_t n;

	while ((n = read(j->err, chunk, sizeof chunk)) > 0) {
		kf_tail_add(&j->errt, chunk, (size_t)n);
		if (fwrite(chunk, 1, (size_t)n, stderr) != (size_t)n)
			break;
	}
	fflush(stderr);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(j->err);
		j->err = -1;
	}
}

static void
reap(void)
{
	struct job *j;
	pid_t pid;
	int ws, i;

	while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
		for (j = jobs; j; j = j->next)
			for (i = 0; i < j->npids; i++)
				if (j->pids[i] == pid) {
					j->st[i] = kf_wait_status(ws);
					j->alive--;
				}
}

/* Jobs whose step ended: the next step started, answered, or freed once
 * nothing of them runs. */
static void
settle(void)
{
	struct job **jp = &jobs, *j;
	int i, prev, idle;

	while ((j = *jp) != NULL) {
		idle = j->out < 0 && j->err < 0 && j->alive <= 0;
		if (idle && !j->reported && !j->cancelled) {
			/* pipefail: the rightmost stage that did not succeed. */
			j->status = 0;
			for (i = 0; i < j->npids; i++)
				if (j->st[i])
					j->status = j->st[i];
			prev = j->step;
			step_done(j);
			if (j->step == prev)
				j->reported = 1;
			continue;
		}
		if (idle) {
			*jp = j->next;
			job_free(j);
			continue;
		}
		jp = &j->next;
	}
}

static void
on_signal(int sig)
{
	stop_sig = sig;
}

static void
options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-line", required_argument, NULL, 'm' },
		KF_OPT_COMMON
	};
	int c;

	kf_opt_complete(NULL, NULL);
	while ((c = kf_getopt(argc, argv, "", longopts)) != -1) {
		if (c == 'm')
			max_line = kf_opt_size(optarg, "--max-line");
		else
			kf_usage();
	}
	if (optind < argc)
		kf_usage_error("'%s': kf-mcp takes no operands", argv[optind]);
	if (max_line < 2)
		kf_usage_error("--max-line %s: too small", argv[optind - 1]);
}

static void
setup(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	const struct kf_profiler *const *p;
	cJSON *prof;
	size_t i;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	if ((tools = cJSON_Parse(tools_json)) == NULL)
		kf_die(1, "the tools' schemas are not JSON");
	/* The profilers kf has, from their descriptors. */
	prof = cJSON_GetObjectItemCaseSensitive(kf_obj(kf_obj(cJSON_GetArrayItem(tools,
	    T_PROFILE), "inputSchema"), "properties"), "profiler");
	cJSON_AddItemToObject(prof, "enum", cJSON_CreateArray());
	for (p = kf_profilers; *p; p++)
		kf_push_str(cJSON_GetObjectItemCaseSensitive(prof, "enum"), (*p)->name);
}

int
main(int argc, char **argv)
{
	struct kf_rpc_in in;
	struct pollfd *pf = NULL;
	struct job **owner = NULL, *j;
	size_t cap = 0;
	const char *s;
	size_t n;
	int np, i, r, stopping = 0;
	double now;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	options(argc, argv);
	setup();
	/* The server's log keeps what every stage said, as kf's stages would
	 * not (KF_QUIET_ERRORS): a cancelled call's answer is never seen. */
	setenv(KF_QUIET_ERRORS, "0", 0);
	kf_rpc_in_init(&in, 0, max_line);
	for (;;) {
		if (stop_sig && !stopping) {
			stopping = 1;
			for (j = jobs; j; j = j->next)
				cancel(j, kf_now());
		}
		if (out_failed && !stopping) {
			stopping = 1;
			for (j = jobs; j; j = j->next)
				cancel(j, kf_now());
		}
		while (!stopping && (r = kf_rpc_next(&in, &s, &n)) != 0) {
			if (r == 2)
				send(kf_rpc_error(NULL, KF_RPC_INVALID, "line %ld: a message of more "
				    "than %zu bytes (--max-line): not read", in.line, max_line));
			else
				message(s, n, in.line);
		}
		reap();
		settle();
		if ((in.eof || stopping) && jobs == NULL)
			break;
		now = kf_now();
		np = 0;
		for (j = jobs; j; j = j->next) {
			progress(j, now);
			if (j->cancelled && j->alive > 0 && now >= j->kill_at) {
				killpg(j->pids[0], SIGKILL);
				j->kill_at = now + GIVE_UP;
			}
		}
		for (i = 1, j = jobs; j; j = j->next)
			i += 2;
		if ((size_t)i > cap) {
			cap = kf_grow_cap(cap, (size_t)i, 16);
			pf = xreallocarray(pf, cap, sizeof *pf);
			owner = xreallocarray(owner, cap, sizeof *owner);
		}
		if (!in.eof && !stopping) {
			pf[np].fd = 0;
			pf[np].events = POLLIN;
			owner[np++] = NULL;
		}
		for (j = jobs; j; j = j->next) {
			for (i = 0; i < 2; i++) {
				int fd = i ? j->err : j->out;
				if (fd < 0)
					continue;
				pf[np].fd = fd;
				pf[np].events = POLLIN;
				owner[np++] = j;
			}
		}
		/* Children end without a signal here: poll wakes for output and
		 * every 100 ms to reap them and to tell progress. */
		if (poll(pf, (nfds_t)np, jobs ? 100 : -1) < 0) {
			if (errno == EINTR)
				continue;
			kf_die(1, "poll:");
		}
		for (i = 0; i < np; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (owner[i] == NULL)
				kf_rpc_read(&in);
			else if (pf[i].fd == owner[i]->out)
				read_out(owner[i]);
			else if (pf[i].fd == owner[i]->err)
				read_err(owner[i]);
		}
	}
	free(pf);
	free(owner);
	kf_rpc_in_free(&in);
	cJSON_Delete(tools);
	if (fflush(stdout) != 0)
		out_failed = 1;
	return out_failed || stop_sig ? 1 : 0;
}

/* unitrace's Chrome trace, event by event. unitrace writes one event per
 * line and never escapes names, so a line that is a whole event is taken as
 * one even when its quotes do not balance; events spread over several lines
 * (other writers) are found by counting brackets outside strings. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "chrome.h"
#include "lines.h"
#include "mem.h"
#include "num.h"
#include "path.h"
#include "record.h"

/* An event is a few hundred bytes; one that grows past this is a bracket
 * that never closes (a broken file): dropped, so that memory stays bounded. */
#define MAX_EVENT (1 << 20)

struct ct {
	cJSON *out, *kernels, *itt, *devices;
	struct buf ev;		/* the event being gathered */
	int depth, in_str, esc, open;
	int started, closed;
	long events, salvaged;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
mentions(const char *path, const char *what)
{
	struct kf_lines l;
	int hit = 0;

	if (kf_lines_open(&l, path) != 0)
		return 0;
	while (!hit && kf_lines_next(&l) > 0)
		hit = strstr(l.s, what) != NULL;
	kf_lines_close(&l);
	return hit;
}

char *
kf_chrome_pick(const char *dir, int *others)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL, *pick = NULL;
	size_t n = 0, cap = 0, i;

	*others = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		char *p;

		if (!kf_endswith(e->d_name, ".json"))
			continue;
		p = kf_path_join(dir, e->d_name);
		if (!kf_is_file(p)) {
			free(p);
			continue;
		}
		KF_GROW(v, n, cap, 8);
		v[n++] = p;
	}
	closedir(d);
	if (n)
		kf_sort(v, n, sizeof *v, by_name);
	for (i = 0; i < n && !pick; i++) {
		const char *base = strrchr(v[i], '/') + 1;

		if (strstr(base, "python"))
			pick = v[i];
	}
	for (i = 0; i < n && !pick; i++)
		if (mentions(v[i], "model run loop"))
			pick = v[i];
	if (!pick && n)
		pick = v[0];
	for (i = 0; i < n; i++)
		if (v[i] != pick)
			free(v[i]);
	free(v);
	*others = n ? (int)n - 1 : 0;
	return pick;
}

/* Number after "key": (quoted or not) in s, searching from s. */
static int
find_num(const char *s, const char *key, double *out)
{
	const char *p = strstr(s, key);
	char *end;

	if (p == NULL)
		return 0;
	p += strlen(key);
	while (*p == ' ' || *p == '"')
		p++;
	*out = strtod(p, &end);
	return end != p;
}

/* An event cJSON could not parse, usually a name with a quote in it: take
 * its fields by their keys, in the order unitrace writes them. */
static cJSON *
salvage(const char *t)
{
	const char *name = strstr(t, "\"name\": \""), *nend, *args;
	cJSON *ev;
	double ts, dur, id;

	if (name == NULL)
		return NULL;
	name += 9;
	nend = strstr(name, "\", \"cat\": \"");
	if (nend == NULL)
		nend = strstr(name, "\", \"ts\": ");
	if (nend == NULL || !find_num(nend, "\"ts\":", &ts))
		return NULL;
	ev = cJSON_CreateObject();
	{
		char *s = xstrndup(name, (size_t)(nend - name));

		cJSON_AddStringToObject(ev, "name", s);
		free(s);
	}
	cJSON_AddNumberToObject(ev, "ts", ts);
	if (find_num(nend, "\"dur\":", &dur))
		cJSON_AddNumberToObject(ev, "dur", dur);
	if (strstr(t, "\"ph\": \"M\""))
		cJSON_AddStringToObject(ev, "ph", "M");
	if ((args = strstr(nend, "\"args\":")) != NULL && find_num(args, "\"id\":", &id)) {
		cJSON *a = cJSON_AddObjectToObject(ev, "args");

		cJSON_AddNumberToObject(a, "id", id);
	}
	return ev;
}

static int
num_of(const cJSON *v, double *out)
{
	char *end;

	if (cJSON_IsNumber(v)) {
		*out = v->valuedouble;
		return 1;
	}
	if (cJSON_IsString(v) && v->valuestring[0]) {
		*out = strtod(v->valuestring, &end);
		return *end == '\0';
	}
	return 0;
}

static void
add_device(struct ct *c, const char *s)
{
	/* "DEVICE<host>[Intel(R) Arc(TM) B580 Graphics] 0:3:0:0 #0" */
	const char *a = strchr(s, '['), *b = strrchr(s, ']');
	const cJSON *d;
	char *name;

	if (strncmp(s, "DEVICE", 6) != 0 || a == NULL || b == NULL || b < a)
		return;
	name = xstrndup(a + 1, (size_t)(b - a - 1));
	cJSON_ArrayForEach(d, c->devices)
		if (strcmp(d->valuestring, name) == 0)
			break;
	if (d == NULL)
		cJSON_AddItemToArray(c->devices, cJSON_CreateString(name));
	free(name);
}

static void
take(struct ct *c, const cJSON *ev)
{
	const char *name = kf_str(ev, "name"), *ph = kf_str(ev, "ph");
	const cJSON *args = kf_obj(ev, "args");
	double ts, dur, id;
	size_t plen = strlen(KF_ITT_RUN_LOOP);

	c->events++;
	if (name == NULL)
		return;
	if (ph && strcmp(ph, "M") == 0) {
		if (strcmp(name, "process_name") == 0 && kf_str(args, "name"))
			add_device(c, kf_str(args, "name"));
		return;
	}
	if (!num_of(cJSON_GetObjectItemCaseSensitive(ev, "ts"), &ts) ||
	    !num_of(cJSON_GetObjectItemCaseSensitive(ev, "dur"), &dur))
		return;
	if (strncmp(name, KF_ITT_RUN_LOOP, plen) == 0 &&
	    (name[plen] == '\0' || strncmp(name + plen, "::", 2) == 0)) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", name);
		cJSON_AddStringToObject(o, "label", name[plen] ? name + plen + 2 : "default");
		cJSON_AddNumberToObject(o, "ts", ts);
		cJSON_AddNumberToObject(o, "dur", dur);
		cJSON_AddItemToArray(c->itt, o);
		return;
	}
	/* Device operations carry the global instance id in args.id; host
	 * calls and flow arrows have a top-level id instead. */
	if (args && num_of(cJSON_GetObjectItemCaseSensitive(args, "id"), &id)) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", id);
		cJSON_AddStringToObject(o, "name", name);
		cJSON_AddNumberToObject(o, "ts", ts);
		cJSON_AddNumberToObject(o, "dur", dur);
		cJSON_AddItemToArray(c->kernels, o);
	}
}

static void
event(struct ct *c, const char *t, size_t n)
{
	cJSON *ev = cJSON_ParseWithLength(t, n);

	if (ev == NULL) {
		char *s = xstrndup(t, n);

		ev = salvage(s);
		free(s);
		if (ev == NULL)
			return;
		c->salvaged++;
	}
	if (cJSON_IsObject(ev))
		take(c, ev);
	cJSON_Delete(ev);
}

static void
reset(struct ct *c)
{
	buf_reset(&c->ev);
	c->depth = c->in_str = c->esc = c->open = 0;
}

/* Gather events from text by counting brackets outside strings. */
static void
scan(struct ct *c, const char *p)
{
	for (; *p && !c->closed; p++) {
		if (!c->open) {
			if (*p == '{') {
				c->open = 1;
				c->depth = 1;
				buf_putc(&c->ev, '{');
			} else if (*p == ']') {
				c->closed = 1;
			}
			continue;
		}
		buf_putc(&c->ev, *p);
		if (c->ev.len > MAX_EVENT) {
			reset(c);
			continue;
		}
		if (c->in_str) {
			if (c->esc)
				c->esc = 0;
			else if (*p == '\\')
				c->esc = 1;
			else if (*p == '"')
				c->in_str = 0;
		} else if (*p == '"') {
			c->in_str = 1;
		} else if (*p == '{' || *p == '[') {
			c->depth++;
		} else if ((*p == '}' || *p == ']') && --c->depth == 0) {
			event(c, c->ev.s, c->ev.len);
			reset(c);
		}
	}
	if (c->open)
		buf_putc(&c->ev, '\n');
}

static void
line(struct ct *c, char *s)
{
	char *t = kf_trim(s), *e;
	size_t n;

	if (!c->started) {
		char *p = strstr(t, "traceEvents");

		if (p == NULL && t[0] != '[')
			return;
		p = strchr(p ? p : t, '[');
		if (p == NULL)
			return;
		c->started = 1;
		scan(c, p + 1);
		return;
	}
	if (c->closed)
		return;
	if (!c->open) {
		while (*t == ',' || *t == ' ' || *t == '\t')
			t++;
		n = strlen(t);
		for (e = t + n; e > t && (e[-1] == ',' || e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		n = (size_t)(e - t);
		if (n >= 2 && t[0] == '{' && t[n - 1] == '}') {
			event(c, t, n);
			return;
		}
	}
	scan(c, t);
}

cJSON *
kf_chrome_read(const char *path, struct buf *msg)
{
	struct kf_lines l;
	struct ct c;
	const char *slash = strrchr(path, '/');
	int rc;

	if (kf_lines_open(&l, path) != 0)
		return NULL;
	memset(&c, 0, sizeof c);
	c.out = cJSON_CreateObject();
	cJSON_AddStringToObject(c.out, "file", slash ? slash + 1 : path);
	c.devices = cJSON_CreateArray();
	c.kernels = cJSON_CreateArray();
	c.itt = cJSON_CreateArray();
	while ((rc = kf_lines_next(&l)) > 0)
		line(&c, l.s);
	if (c.open) {
		/* Cut off inside an event: keep it if its fields are all there. */
		event(&c, c.ev.s, c.ev.len);
		reset(&c);
	}
	if (rc < 0 || !c.started) {
		if (rc < 0)
			buf_printf(msg, "%s: read error: %s", path, strerror(errno));
		else
			buf_printf(msg, "%s: not a Chrome trace (no \"traceEvents\" array)", path);
		cJSON_Delete(c.devices);
		cJSON_Delete(c.kernels);
		cJSON_Delete(c.itt);
		cJSON_Delete(c.out);
		buf_free(&c.ev);
		kf_lines_close(&l);
		return NULL;
	}
	cJSON_AddBoolToObject(c.out, "truncated", !c.closed);
	cJSON_AddNumberToObject(c.out, "nul_bytes", (double)l.nuls);
	cJSON_AddNumberToObject(c.out, "events_read", (double)c.events);
	cJSON_AddNumberToObject(c.out, "salvaged", (double)c.salvaged);
	cJSON_AddItemToObject(c.out, "devices", c.devices);
	cJSON_AddItemToObject(c.out, "kernels", c.kernels);
	cJSON_AddItemToObject(c.out, "itt", c.itt);
	buf_free(&c.ev);
	kf_lines_close(&l);
	return c.out;
}

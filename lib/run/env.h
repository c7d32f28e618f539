/* kf: the environment a program is started with: kf-run's own, less what
 * looks like a secret, with a record's "env" object on top.
 *
 * Ownership: kf_env_base() returns a vector the caller frees with free();
 * its strings are environ's, not copies. struct kf_env belongs to the
 * caller and is released with kf_env_free(), which frees the strings
 * kf_env_set() made; the strings it took from the base are only borrowed
 * and must outlive it. */
#ifndef KF_ENV_H
#define KF_ENV_H

#include <stddef.h>

#include <cJSON.h>

/* Does the name of kv (NAME or NAME=VALUE) look like a secret: *PASSWORD*,
 * *SECRET*, *_TOKEN or *_USERNAME, in any case? */
int kf_secret_name(const char *kv);

/* This process's environment, NULL-terminated; without the variables
 * kf_secret_name() picks unless pass_secrets. */
char **kf_env_base(int pass_secrets);

struct kf_env {
	char **v;		/* NAME=VALUE, NULL-terminated: for execve */
	size_t n, cap;
	char **owned;		/* the strings kf_env_set() made */
	size_t nowned;
};

/* e (zeroed) as base with renv, a record's "env" object (NULL: none), on
 * top: a string sets, a number sets its text, null unsets. NULL, or a
 * static message saying what is wrong with renv; either way, e is to be
 * released with kf_env_free(). */
const char *kf_env_build(struct kf_env *e, char *const base[], const cJSON *renv);
/* Set name to val, or unset it (val NULL). */
void kf_env_set(struct kf_env *e, const char *name, const char *val);
void kf_env_free(struct kf_env *e);

#endif

/* librevperf_cct_noop.so: the hooks of librevperf_cct.so doing nothing, to measure what
 * -finstrument-functions costs by itself (bench/, docs/cct-format.md). */
#define EXPORT __attribute__((visibility("default")))

EXPORT void __cyg_profile_func_enter(void *fn, void *site);
EXPORT void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

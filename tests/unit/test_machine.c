/* The machine description (collect/machine.h), against what the system itself says. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "collect/machine.h"
#include "util/common.h"
#include "util/input.h"

static void test_info_matches_system(void **state)
{
	struct machine_info m;
	struct utsname u;
	char host[256];

	UNUSED(state);
	memset(&m, 0x55, sizeof(m));
	machine_info_read(&m);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(m.kernel, u.release);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(m.hostname, host);
	assert_int_equal(m.cores, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(m.cores >= 1);
	/* NUL-terminated and non-empty, whatever the machine has. */
	assert_true(m.cpu_model[0] && strlen(m.cpu_model) < sizeof(m.cpu_model));
	assert_true(m.governor[0] && strlen(m.governor) < sizeof(m.governor));
}

static void test_cpu_model_from_proc(void **state)
{
	struct strbuf cpuinfo = STRBUF_INIT;
	struct machine_info m;
	char expected[160];

	UNUSED(state);
	if (input_read(&cpuinfo, "/proc/cpuinfo", &input_state) < 0) {
		print_message("skipped: /proc/cpuinfo is not readable here\n");
		skip();
	}
	machine_cpu_model_parse(cpuinfo.buf, expected, sizeof(expected));
	machine_info_read(&m);
	assert_string_equal(m.cpu_model, expected);
	if (strstr(cpuinfo.buf, "model name"))
		assert_string_not_equal(m.cpu_model, "unknown");
	strbuf_release(&cpuinfo);
}

static void test_governor(void **state)
{
	struct strbuf gov = STRBUF_INIT, why = STRBUF_INIT;
	struct machine_info m;

	UNUSED(state);
	machine_info_read(&m);
	if (input_read_why(&gov, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
			   &input_state, &why) < 0) {
		assert_string_equal(m.governor, "unknown");
	} else {
		/* The file's content without its newline. */
		while (gov.len && (gov.buf[gov.len - 1] == '\n' || gov.buf[gov.len - 1] == ' '))
			gov.buf[--gov.len] = '\0';
		assert_string_equal(m.governor, gov.buf);
	}
	strbuf_release(&gov);
	strbuf_release(&why);
}

static void test_cpu_model_parse_table(void **state)
{
	static const struct {
		const char *cpuinfo;
		const char *model;
	} cases[] = {
	    {"processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
	     "model name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\ncpu MHz\t\t: 2100.0\n"
	     "\nprocessor\t: 1\nmodel name\t: Other\n",
	     "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz"},
	    /* Old ARM: "Processor" first, "model name" later wins. */
	    {"Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\n"
	     "model name\t: ARMv7 Processor rev 4 (v7l)\nHardware\t: BCM2835\n",
	     "ARMv7 Processor rev 4 (v7l)"},
	    {"processor\t: 0\nBogoMIPS\t: 48.00\nCPU implementer\t: 0x41\n\n"
	     "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n",
	     "Raspberry Pi 4 Model B Rev 1.4"},
	    {"processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: "
	     "2.2GHz\n",
	     "POWER9 (architected), altivec supported"},
	    {"system type\t\t: MT7621\nprocessor\t\t: 0\ncpu model\t\t: MIPS 1004Kc V2.15\n",
	     "MIPS 1004Kc V2.15"},
	    /* No key, an empty value, no newline at the end, nothing at all. */
	    {"processor\t: 0\nBogoMIPS\t: 48.00\n", "unknown"},
	    {"model name\t:   \nprocessor\t: 0\n", "unknown"},
	    {"model name : Last Line CPU  ", "Last Line CPU"},
	    {"", "unknown"},
	};

	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char out[160];

		machine_cpu_model_parse(cases[i].cpuinfo, out, sizeof(out));
		if (strcmp(out, cases[i].model))
			fail_msg("case %zu: got \"%s\", expected \"%s\"", i, out, cases[i].model);
	}
}

static void test_cpu_model_truncated(void **state)
{
	char out[8];

	UNUSED(state);
	machine_cpu_model_parse("model name: ABCDEFGHIJKLMNOP\n", out, sizeof(out));
	assert_string_equal(out, "ABCDEFG");
}

static void test_loadavg(void **state)
{
	struct strbuf text = STRBUF_INIT;
	double load = machine_loadavg1();

	UNUSED(state);
	if (input_read(&text, "/proc/loadavg", &input_state) < 0) {
		assert_true(load == -1);
	} else {
		/* The first field of the file (which the kernel updates every 5 s). */
		double expected = strtod(text.buf, NULL);

		assert_true(load >= 0);
		assert_true(fabs(load - expected) <= 1.0);
	}
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_info_matches_system),
	    cmocka_unit_test(test_cpu_model_from_proc),
	    cmocka_unit_test(test_governor),
	    cmocka_unit_test(test_cpu_model_parse_table),
	    cmocka_unit_test(test_cpu_model_truncated),
	    cmocka_unit_test(test_loadavg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

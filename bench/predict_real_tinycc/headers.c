/* bench/predict_real_tinycc/headers.c: the preprocessor's benchmark (bench/predict_real_tinycc.sh):
   tcc -c of a file that includes the C library's common headers (the machine's glibc
   headers and tcc's own include/), most of whose work is reading, tokenising and expanding
   their declarations and macros. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <setjmp.h>
#include <elf.h>
#include <sys/mman.h>
#include <pthread.h>
#include <stdint.h>
#include <errno.h>

int main(void)
{
	return 0;
}

/*
 * The performance ceiling: a minimal libmicrohttpd server that answers every request
 * with one prebuilt response (the exact bytes and headers of Tabula's
 * GET /v1/screens/settings), with Tabula's threading model (internal poll thread, a pool
 * of one thread per core, keep-alive: the response is queued on the second call).
 *
 * usage: ceiling PORT BODY_FILE [THREADS]     prints "listening on http://127.0.0.1:PORT"
 *
 * With CEILING_BUSY_US=N in its environment it computes for about N microseconds before
 * queueing each answer (a chain of multiplications in registers, no memory: the loop's
 * length is measured once at start): what a server that does N microseconds of work per
 * request, all of it in the caches, reaches on this machine (Scripts/bench-core-share).
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct MHD_Response *prebuilt;
static unsigned long busy_iterations;
static volatile unsigned long busy_result;

/* Dependent multiply-adds: each waits for the one before, so the time per iteration does
 * not depend on what else the core runs or on the caches. */
static void compute(unsigned long iterations) {
    unsigned long value = 1;
    for (unsigned long i = 0; i < iterations; i++) {
        value = value * 6364136223846793005UL + 1442695040888963407UL;
        __asm__ volatile("" : "+r"(value));
    }
    busy_result = value;
}

/* How many iterations of compute() take `microseconds`, timed over a long run at start. */
static unsigned long iterations_for(double microseconds) {
    const unsigned long sample = 50000000UL;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    compute(sample);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double nanoseconds = (double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec);
    return (unsigned long)(microseconds * 1000.0 * (double)sample / nanoseconds);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **request) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*request == NULL) {  /* first call: headers only; queueing now would close the connection */
        *request = (void *)1;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (busy_iterations != 0) compute(busy_iterations);
    return MHD_queue_response(connection, MHD_HTTP_OK, prebuilt);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PORT BODY_FILE [THREADS]\n", argv[0]);
        return 2;
    }
    FILE *file = fopen(argv[2], "rb");
    if (file == NULL) { perror(argv[2]); return 1; }
    static char body[1 << 20];
    size_t length = fread(body, 1, sizeof body, file);
    fclose(file);
    unsigned int threads = argc > 3 ? (unsigned int)atoi(argv[3]) : (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
    const char *busy = getenv("CEILING_BUSY_US");
    if (busy != NULL && atof(busy) > 0) {
        busy_iterations = iterations_for(atof(busy));
        fprintf(stderr, "computing %lu iterations (%s us) per request\n", busy_iterations, busy);
    }
    prebuilt = MHD_create_response_from_buffer(length, body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(prebuilt, "Content-Type", "application/json");
    MHD_add_response_header(prebuilt, "ETag", "\"0123456789abcdef\"");
    MHD_add_response_header(prebuilt, "Cache-Control", "no-cache");
    MHD_add_response_header(prebuilt, "Vary", "X-Session");
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, (uint16_t)atoi(argv[1]), NULL, NULL, answer, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_TIMEOUT, 30U,
        MHD_OPTION_CONNECTION_LIMIT, 2048U, MHD_OPTION_LISTEN_BACKLOG_SIZE, 511U, MHD_OPTION_END);
    if (daemon == NULL) { fprintf(stderr, "cannot start\n"); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    printf("listening on http://127.0.0.1:%u\n", info ? info->port : 0);
    fflush(stdout);
    int received;
    sigwait(&signals, &received);
    MHD_stop_daemon(daemon);
    MHD_destroy_response(prebuilt);
    return 0;
}

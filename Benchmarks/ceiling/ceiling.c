/*
 * The performance ceiling: a minimal libmicrohttpd server that answers every request
 * with one prebuilt response (the exact bytes and headers of Tabula's
 * GET /v1/screens/settings), with Tabula's threading model (internal poll thread, a pool
 * of one thread per core, keep-alive: the response is queued on the second call).
 *
 * usage: ceiling PORT BODY_FILE [THREADS]     prints "listening on http://127.0.0.1:PORT"
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct MHD_Response *prebuilt;

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

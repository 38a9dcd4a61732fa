/*
 * Time from start to first answer: starts a server command and asks
 * GET PATH on 127.0.0.1:PORT every 200 microseconds until the answer is 200, then prints
 * the milliseconds since the start (fork + exec included) and stops the server (SIGTERM).
 *
 * usage: first-answer PORT PATH COMMAND [ARGUMENTS...]      exit 1 if no answer in 10 s
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* 1 when the server answered 200, 0 otherwise (not listening yet, or another status). */
static int answered(unsigned short port, const char *path) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&address, sizeof address) == 0) {
        char request[512];
        int length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
        if (write(fd, request, (size_t)length) == length) {
            char status[16] = {0};
            ssize_t got = 0;
            while (got < 12) {
                ssize_t n = read(fd, status + got, 12 - (size_t)got);
                if (n <= 0) break;
                got += n;
            }
            ok = got == 12 && memcmp(status + 9, "200", 3) == 0;
        }
    }
    close(fd);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s PORT PATH COMMAND [ARGUMENTS...]\n", argv[0]);
        return 2;
    }
    unsigned short port = (unsigned short)atoi(argv[1]);
    const char *path = argv[2];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    double start = now_ms();
    pid_t child;
    if (posix_spawn(&child, argv[3], &actions, NULL, argv + 3, environ) != 0) {
        perror(argv[3]);
        return 1;
    }
    double elapsed = -1;
    while (now_ms() - start < 10000) {
        if (answered(port, path)) {
            elapsed = now_ms() - start;
            break;
        }
        int status;
        if (waitpid(child, &status, WNOHANG) == child) {
            fprintf(stderr, "the server exited before answering\n");
            return 1;
        }
        usleep(200);
    }
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    if (elapsed < 0) {
        fprintf(stderr, "no answer within 10 s\n");
        return 1;
    }
    printf("%.1f\n", elapsed);
    return 0;
}

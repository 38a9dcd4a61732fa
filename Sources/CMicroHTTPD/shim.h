// Shims for libmicrohttpd calls that Swift cannot make itself: MHD_start_daemon,
// MHD_get_*_info and MHD_set_response_options are variadic. Only the TabulaHTTP target
// imports this module.
#ifndef TABULA_MICROHTTPD_SHIM_H
#define TABULA_MICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <netinet/tcp.h>

/// Where Linux's struct tcp_info (linux/tcp.h, a stable kernel ABI) keeps
/// tcpi_bytes_received. glibc's netinet/tcp.h has an older struct tcp_info without it, and
/// the two headers cannot both be imported.
#define TABULA_TCPI_BYTES_RECEIVED_OFFSET 128

/// The bytes the kernel has received on a TCP socket since it opened (RFC 4898's
/// tcpEStatsAppHCThruOctetsReceived, Linux 4.1 and later), or -1 when it cannot tell: how
/// the server sees that a client is sending a request head that is not complete yet.
static inline long long tabula_bytes_received(int socket) {
#ifdef __linux__
    unsigned char info[256];
    memset(info, 0, sizeof info);
    socklen_t length = sizeof info;
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, info, &length) != 0) return -1;
    if (length < TABULA_TCPI_BYTES_RECEIVED_OFFSET + sizeof(uint64_t)) return -1;
    uint64_t bytes;
    memcpy(&bytes, info + TABULA_TCPI_BYTES_RECEIVED_OFFSET, sizeof bytes);
    return (long long)bytes;
#else
    (void)socket;
    return -1;
#endif
}

/// Everything tabula_start_daemon passes to MHD_start_daemon.
struct tabula_daemon_settings {
    unsigned int flags;
    const struct sockaddr *address;
    MHD_AccessHandlerCallback access_handler;
    MHD_RequestCompletedCallback request_completed;
    MHD_LogCallback logger;
    MHD_AcceptPolicyCallback accept_policy;
    MHD_NotifyConnectionCallback notify_connection;
    void *(*uri_logger)(void *cls, const char *uri, struct MHD_Connection *connection);
    void *context;
    unsigned int thread_pool_size;
    unsigned int connection_timeout_seconds;
    unsigned int connection_limit;
    size_t connection_memory_limit;
    unsigned int listen_backlog;
};

/// Leaves request paths and query arguments exactly as the client sent them: the router
/// decodes them itself, so "%2F" or "%00" can never change a path's structure.
static size_t tabula_keep_escapes(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// Whether the request target reached the access handler whole. libmicrohttpd ends the
/// target by writing a NUL over the space before "HTTP/x.y", so the version string starts
/// right after the target's full length (`target_length`, measured in the URI log callback
/// before the query is split off). A NUL byte the client sent ends the C string earlier,
/// and libmicrohttpd would hand over only the part before it; then the two disagree.
static inline int tabula_target_is_whole(const char *url, const char *version, size_t target_length) {
    return version == url + target_length + 1;
}

static inline struct MHD_Daemon *tabula_start_daemon(const struct tabula_daemon_settings *s) {
    return MHD_start_daemon(
        s->flags, 0, s->accept_policy, s->context, s->access_handler, s->context,
        MHD_OPTION_EXTERNAL_LOGGER, s->logger, s->context,
        MHD_OPTION_SOCK_ADDR, s->address,
        MHD_OPTION_NOTIFY_COMPLETED, s->request_completed, s->context,
        MHD_OPTION_NOTIFY_CONNECTION, s->notify_connection, s->context,
        MHD_OPTION_URI_LOG_CALLBACK, s->uri_logger, s->context,
        MHD_OPTION_UNESCAPE_CALLBACK, tabula_keep_escapes, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, s->thread_pool_size,
        MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory_limit,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, s->listen_backlog,
        MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
        MHD_OPTION_END);
}

/// Sets how long the connection's socket may hold sent bytes its peer has not acknowledged
/// before the kernel closes it (TCP_USER_TIMEOUT, Linux); 0 when set, -1 otherwise.
static inline int tabula_set_unacknowledged_timeout(struct MHD_Connection *connection, unsigned int milliseconds) {
#ifdef TCP_USER_TIMEOUT
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return -1;
    return setsockopt(info->connect_fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &milliseconds, sizeof milliseconds);
#else
    (void)connection;
    (void)milliseconds;
    return -1;
#endif
}

/// The port the daemon listens on (useful after binding port 0), or 0.
static inline uint16_t tabula_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The number of open connections, or 0 when unknown.
static inline unsigned int tabula_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The client's address, or NULL.
static inline const struct sockaddr *tabula_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The connection's socket context (set by the connection-notification callback), or NULL.
static inline void *tabula_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The connection's socket, or -1.
static inline int tabula_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Makes a response close its connection after it and never use chunked encoding (its head
/// alone, for HEAD): MHD_set_response_options is variadic. Returns MHD_NO on failure.
static inline enum MHD_Result tabula_close_unchunked(struct MHD_Response *response) {
    return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
}

/// Formats one libmicrohttpd log message (a printf format and its va_list) into `buffer`.
static inline int tabula_format_log(char *buffer, size_t size, const char *format, va_list arguments) {
    return vsnprintf(buffer, size, format, arguments);
}

#endif

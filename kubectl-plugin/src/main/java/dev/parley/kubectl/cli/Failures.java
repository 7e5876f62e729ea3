package dev.parley.kubectl.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;

/**
 * Turns an exception that escaped a command into one line on stderr and an exit code (never a stack trace:
 * the user needs to know what to fix, not where the plugin was).
 */
public final class Failures implements CommandLine.IExecutionExceptionHandler {
    /** Thrown by commands for an expected failure with a known code and message. */
    public static final class CommandFailure extends RuntimeException {
        private final int code;

        public CommandFailure(int code, String message) {
            super(message);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parsed) {
        cmd.getErr().println("error: " + message(ex));
        cmd.getErr().flush();
        return exitCode(ex);
    }

    public static int exitCode(Throwable ex) {
        if (ex instanceof CommandFailure f) {
            return f.code();
        }
        if (ex instanceof CommandLine.ParameterException || ex instanceof CommandLine.TypeConversionException) {
            return ExitCodes.USAGE;
        }
        if (unreachable(ex)) {
            return ExitCodes.UNREACHABLE;
        }
        if (ex instanceof KubernetesClientException k && k.getCode() == 404) {
            return ExitCodes.NOT_FOUND;
        }
        return ExitCodes.ERROR;
    }

    public static String message(Throwable ex) {
        if (ex instanceof CommandFailure) {
            return ex.getMessage();
        }
        if (ex instanceof KubernetesClientException k) {
            if (unreachable(ex)) {
                return "cannot reach the Kubernetes API server (" + rootCause(ex).getClass().getSimpleName() + "; check "
                        + "--kubeconfig and --context): " + String.valueOf(k.getMessage()).replaceAll("\\s+", " ").trim();
            }
            if (k.getCode() == 401 || k.getCode() == 403) {
                return "the API server refused the request (HTTP " + k.getCode() + "): " + statusMessage(k);
            }
            return "Kubernetes API: " + statusMessage(k);
        }
        if (ex instanceof UncheckedIOException u) {
            return rootMessage(u);
        }
        if (unreachable(ex)) {
            return "not reachable: " + rootMessage(ex);
        }
        return rootMessage(ex);
    }

    private static String statusMessage(KubernetesClientException k) {
        if (k.getStatus() != null && k.getStatus().getMessage() != null) {
            return k.getStatus().getMessage();
        }
        return rootMessage(k);
    }

    /** Connection refused, unknown host, connect timeout, or an etcd call that did not answer in time. */
    static boolean unreachable(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof HttpConnectTimeoutException
                    || t instanceof UnresolvedAddressException || t instanceof TimeoutException
                    || t.getClass().getName().equals("io.grpc.StatusRuntimeException")
                    || t instanceof IOException && t.getMessage() != null && t.getMessage().contains("Connection refused")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable ex) {
        Throwable t = ex;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    private static String rootMessage(Throwable ex) {
        Throwable t = ex;
        String msg = null;
        while (t != null) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                msg = t.getMessage();
            }
            if (t.getCause() == null || t.getCause() == t) {
                break;
            }
            t = t.getCause();
        }
        return msg != null ? msg : t.getClass().getSimpleName();
    }
}

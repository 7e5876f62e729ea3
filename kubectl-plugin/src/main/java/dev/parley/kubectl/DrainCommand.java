package dev.parley.kubectl;

import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Asks the operator to drain a media pod (annotation {@code parley.dev/drain-requested}); the operator runs the
 * five phases. With {@code --wait} this follows the phases from the pod's annotations until the pod is gone.
 */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = "Drain an SFU or TURN pod through the operator's five phases.")
public final class DrainCommand implements Callable<Integer> {
    @Mixin
    KubeOptions kube;

    @Parameters(index = "0", description = "Pod name.")
    String pod;

    @Option(names = "--timeout", description = "Drain budget for this pod, e.g. 300s or 10m (default: the pool's drain.timeoutSeconds).")
    String timeout;

    @Option(names = "--wait", description = "Follow the phases until the pod is gone.")
    boolean waitForEnd;

    @Option(names = "--wait-timeout", defaultValue = "3600s", description = "Give up waiting after this long (default ${DEFAULT-VALUE}).")
    String waitTimeout;

    @Option(names = "--reason", defaultValue = "manual", description = "Reason recorded in events and status.")
    String reason;

    @Option(names = "--poll-interval", defaultValue = "1s", hidden = true)
    String pollInterval;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (KubernetesClient c = kube.client()) {
            String ns = kube.namespace(c);
            var res = c.pods().inNamespace(ns).withName(pod);
            Pod p = res.get();
            if (p == null) {
                err.println("error: pod " + ns + "/" + pod + " not found");
                return 1;
            }
            Map<String, String> labels = p.getMetadata().getLabels();
            String component = labels == null ? null : labels.get(ParleyApi.LABEL_COMPONENT);
            if (!ParleyApi.COMPONENT_SFU.equals(component) && !ParleyApi.COMPONENT_TURN.equals(component)) {
                err.println("error: " + pod + " is not a Parley SFU or TURN pod (label " + ParleyApi.LABEL_COMPONENT + ")");
                return 1;
            }
            String phase = annotation(p, ParleyApi.ANNOTATION_DRAIN_PHASE);
            if (phase == null) {
                Integer seconds = timeout == null ? null : (int) parse(timeout).toSeconds();
                // The operator updates these pods too: retry the read-modify-write on a conflict.
                for (int attempt = 1; ; attempt++) {
                    try {
                        res.edit(x -> {
                            if (x.getMetadata().getAnnotations() == null) {
                                x.getMetadata().setAnnotations(new java.util.HashMap<>());
                            }
                            x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_REQUESTED, reason);
                            if (seconds != null) {
                                x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_TIMEOUT, String.valueOf(seconds));
                            }
                            return x;
                        });
                        break;
                    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                        if (e.getCode() != 409 || attempt >= 10) {
                            throw e;
                        }
                    }
                }
                out.println("pod/" + pod + " drain requested (" + reason + (seconds == null ? "" : ", timeout " + seconds + "s") + ")");
            } else {
                out.println("pod/" + pod + " already draining: phase " + phase);
            }
            out.flush();
            if (!waitForEnd) {
                return 0;
            }
            Instant start = Instant.now();
            Instant deadline = start.plus(parse(waitTimeout));
            String last = null;
            while (Instant.now().isBefore(deadline)) {
                Pod now = res.get();
                if (now == null || now.getMetadata().getDeletionTimestamp() != null) {
                    out.printf("pod/%s drained and removed after %.1fs%n", pod, Duration.between(start, Instant.now()).toMillis() / 1000.0);
                    return 0;
                }
                String ph = annotation(now, ParleyApi.ANNOTATION_DRAIN_PHASE);
                if (ph != null && !ph.equals(last)) {
                    out.printf("  phase %s/5 %s (%.1fs)%n", ph.substring(0, 1), ph.substring(2),
                            Duration.between(start, Instant.now()).toMillis() / 1000.0);
                    out.flush();
                    last = ph;
                }
                Thread.sleep(parse(pollInterval).toMillis());
            }
            err.println("error: timed out waiting for " + pod + " (last phase " + last + ")");
            return 1;
        }
    }

    private static String annotation(Pod p, String key) {
        return p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(key);
    }

    /** 90, 90s, 15m, 1h, 200ms. */
    static Duration parse(String s) {
        String t = s.trim();
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        char unit = t.charAt(t.length() - 1);
        if (Character.isDigit(unit)) {
            return Duration.ofSeconds(Long.parseLong(t));
        }
        long n = Long.parseLong(t.substring(0, t.length() - 1));
        return switch (unit) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw new CommandLine.ParameterException(new CommandLine(new KubectlParley()), "bad duration: " + s);
        };
    }
}

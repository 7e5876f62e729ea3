package dev.parley.kubectl;

import dev.parley.kubectl.cli.Durations;
import dev.parley.kubectl.cli.ExitCodes;
import dev.parley.kubectl.cli.Failures.CommandFailure;
import dev.parley.kubectl.drain.DrainPlan;
import dev.parley.kubectl.drain.DrainPlanText;
import dev.parley.kubectl.drain.DrainPlanner;
import dev.parley.kubectl.drain.DrainRequest;
import dev.parley.kubectl.drain.DrainResult;
import dev.parley.kubectl.drain.DrainWatch;
import dev.parley.kubectl.drain.MediaPool;
import dev.parley.kubectl.output.Documents;
import dev.parley.kubectl.output.OutputFormat;
import dev.parley.kubectl.output.OutputOptions;
import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Asks the operator to drain a media pod (annotation {@code parley.dev/drain-requested}); the operator runs the
 * five phases. {@code --dry-run} shows the plan and changes nothing; {@code --wait} follows the phases until the
 * pod is gone.
 */
@Command(name = "drain", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Drain an SFU or TURN pod through the operator's five phases: its sessions move to the pool's "
                + "other ACTIVE pods, then the operator deletes it and starts a replacement.",
                "With --dry-run, show what would be drained (sessions, where they can move, budget, PodDisruptionBudget "
                        + "effect) and change nothing."},
        footer = {"%nExamples:",
                "  kubectl parley drain eu1-sfu-x7k2p -n parley-system --dry-run",
                "  kubectl parley drain eu1-sfu-x7k2p -n parley-system --wait --wait-timeout 20m",
                "  kubectl parley drain eu1-sfu-x7k2p --timeout 10m -o json   # result document on stdout, progress on stderr"})
public final class DrainCommand implements Callable<Integer> {
    @Mixin
    KubeOptions kube;

    @Mixin
    OutputOptions output;

    @Parameters(index = "0", paramLabel = "POD", description = "Name of the SFU or TURN pod.")
    String pod;

    @Option(names = "--dry-run", arity = "0..1", fallbackValue = "client", paramLabel = "none|client|server",
            description = {"Change nothing. client (also the bare flag): print the plan from reads only. server: also send "
                    + "the annotation change with dryRun=All, so the API server validates and authorizes it without "
                    + "persisting it. none: a real drain (default)."})
    String dryRun;

    @Option(names = "--timeout", converter = Durations.class, paramLabel = "DURATION",
            description = "Drain budget for this pod, e.g. 300s or 10m (default: the pool's drain.timeoutSeconds).")
    Duration timeout;

    @Option(names = "--wait", description = "Follow the phases and the sessions left until the pod is gone.")
    boolean waitForEnd;

    @Option(names = "--wait-timeout", converter = Durations.class, defaultValue = "3600s", paramLabel = "DURATION",
            description = "With --wait: give up after this long, exit code 5 (default ${DEFAULT-VALUE}). The drain itself "
                    + "goes on.")
    Duration waitTimeout;

    @Option(names = "--reason", defaultValue = "manual", description = "Reason recorded in events and status (default ${DEFAULT-VALUE}).")
    String reason;

    @Option(names = "--poll-interval", converter = Durations.class, defaultValue = "1s", hidden = true)
    Duration pollInterval;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        String mode = dryRun == null ? "none" : dryRun.toLowerCase(Locale.ROOT);
        if (!mode.equals("none") && !mode.equals("client") && !mode.equals("server")) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--dry-run must be none, client or server (got '" + dryRun + "')");
        }
        OutputFormat format = output.format();
        PrintWriter out = spec.commandLine().getOut();
        // With -o json|yaml stdout carries only the document; progress goes to stderr.
        PrintWriter progress = format.structured() ? spec.commandLine().getErr() : out;
        Integer seconds = timeout == null ? null : (int) Math.max(1, timeout.toSeconds());
        try (KubernetesClient c = kube.client()) {
            String ns = kube.namespace(c);
            PodResource res = c.pods().inNamespace(ns).withName(pod);
            Pod p = res.get();
            if (p == null) {
                throw new CommandFailure(ExitCodes.NOT_FOUND, "pod " + ns + "/" + pod + " not found");
            }
            Map<String, String> labels = p.getMetadata().getLabels();
            String component = labels == null ? null : labels.get(ParleyApi.LABEL_COMPONENT);
            if (!ParleyApi.COMPONENT_SFU.equals(component) && !ParleyApi.COMPONENT_TURN.equals(component)) {
                throw new CommandFailure(ExitCodes.ERROR,
                        pod + " is not a Parley SFU or TURN pod (label " + ParleyApi.LABEL_COMPONENT + ")");
            }
            if (!mode.equals("none")) {
                DrainPlan plan = DrainPlanner.plan(c, p, reason, seconds, mode);
                if (mode.equals("server") && !plan.pod().alreadyDraining()) {
                    DrainRequest.sendDryRun(res, reason, seconds);
                }
                if (format.structured()) {
                    Documents.write(out, format, plan);
                } else {
                    DrainPlanText.print(out, plan, format == OutputFormat.WIDE);
                }
                return ExitCodes.OK;
            }
            String phase = annotation(p, ParleyApi.ANNOTATION_DRAIN_PHASE);
            String action;
            if (phase == null) {
                DrainRequest.send(res, reason, seconds);
                action = "requested";
                progress.println("pod/" + pod + " drain requested (" + reason + (seconds == null ? "" : ", timeout " + seconds + "s") + ")");
            } else {
                action = "already-draining";
                progress.println("pod/" + pod + " already draining: phase " + phase);
            }
            progress.flush();
            DrainResult.Wait waited = null;
            if (waitForEnd) {
                Integer budget = seconds != null ? seconds
                        : MediaPool.of(c, p).map(MediaPool::drain).map(d -> d.timeoutSeconds).orElse(null);
                progress.printf("waiting up to %ds for pod/%s to be drained and removed (drain budget %s)%n",
                        waitTimeout.toSeconds(), pod, budget == null ? "unknown" : budget + "s");
                progress.flush();
                waited = new DrainWatch(c, p, progress).follow(waitTimeout, pollInterval);
            }
            if (format.structured()) {
                Documents.write(out, format, new DrainResult(Documents.API_VERSION, "DrainResult", pod, ns, action, reason,
                        seconds, phase, waited));
            }
            if (waited != null && waited.outcome().equals("timed-out")) {
                spec.commandLine().getErr().println("error: timed out after " + waitTimeout.toSeconds() + "s waiting for "
                        + pod + " (last phase " + waited.lastPhase() + ", sessions left "
                        + (waited.sessionsLeft() == null ? "unknown" : waited.sessionsLeft()) + "); the drain goes on");
                return ExitCodes.TIMED_OUT;
            }
            return ExitCodes.OK;
        }
    }

    private static String annotation(Pod p, String key) {
        return p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(key);
    }

    /** 90, 90s, 15m, 1h, 200ms (see {@link Durations}). */
    static Duration parse(String s) {
        return Durations.parse(s);
    }
}

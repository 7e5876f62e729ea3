package dev.parley.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.operator.keys.RegistryKeys;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code inspect meeting ID}: owner controller and epoch from etcd, then the owner's view of the meeting. */
@Command(name = "inspect", mixinStandardHelpOptions = true, description = "Inspect Parley objects.",
        subcommands = InspectCommand.Meeting.class)
public final class InspectCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "meeting", mixinStandardHelpOptions = true,
            description = "Owner controller, controller_epoch, SFUs, participants and pending enforcement of a meeting.")
    static final class Meeting implements Callable<Integer> {
        @Parameters(index = "0", description = "Meeting id.")
        String meetingId;

        @Option(names = "--etcd", description = "etcd endpoints (default: $PARLEY_ETCD_ENDPOINTS or http://127.0.0.1:2379; "
                + "use kubectl port-forward svc/parley-etcd 2379).")
        String etcd;

        @Option(names = "--controller-url", description = "Override the owner's internal URL (e.g. a port-forward).")
        String controllerUrl;

        @Option(names = "--secret-file", description = "File with the internal bearer secret (default: $PARLEY_INTERNAL_SECRET).")
        Path secretFile;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String endpoints = etcd != null ? etcd : System.getenv().getOrDefault("PARLEY_ETCD_ENDPOINTS", "http://127.0.0.1:2379");
            KeyValue kv;
            try (Client c = Client.builder().endpoints(endpoints.split(",")).build()) {
                var r = c.getKVClient().get(ByteSequence.from(RegistryKeys.meetingOwner(meetingId), StandardCharsets.UTF_8))
                        .get(5, TimeUnit.SECONDS);
                if (r.getKvs().isEmpty()) {
                    out.println("meeting " + meetingId + ": no owner in etcd (not live, or its owner's lease lapsed)");
                    return 3;
                }
                kv = r.getKvs().get(0);
            }
            String value = kv.getValue().toString(StandardCharsets.UTF_8);
            JsonNode owner = readJson(value);
            String ownerPod = owner != null ? owner.path("pod").asText(owner.path("controller").asText(value)) : value;
            String internal = controllerUrl != null ? controllerUrl
                    : owner != null ? owner.path("internal_url").asText(owner.path("internal_address").asText(null)) : null;
            out.println("meeting:           " + meetingId);
            out.println("owner controller:  " + ownerPod);
            out.println("controller_epoch:  " + kv.getCreateRevision() + "   (create revision of the owner key)");
            out.println("owner lease:       " + Long.toHexString(kv.getLease()));
            out.println("owner internal:    " + (internal == null ? "-" : internal));
            if (internal == null || internal.isBlank()) {
                return 0;
            }
            String secret = secretFile != null ? Files.readString(secretFile).trim() : System.getenv("PARLEY_INTERNAL_SECRET");
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(internal.replaceAll("/+$", "")
                    + "/internal/v1/meetings/" + meetingId + "/state")).timeout(Duration.ofSeconds(5)).GET();
            if (secret != null && !secret.isBlank()) {
                b.header("Authorization", "Bearer " + secret);
            }
            HttpResponse<String> resp;
            try {
                resp = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException e) {
                err.println("owner's internal API not reachable: " + e.getMessage());
                return 4;
            }
            if (resp.statusCode() != 200) {
                err.println("owner's meeting state: HTTP " + resp.statusCode());
                return 4;
            }
            JsonNode st = readJson(resp.body());
            if (st == null) {
                err.println("owner's meeting state is not JSON");
                return 4;
            }
            out.println("sfus:              " + st.path("sfus"));
            out.println("participants:      " + st.path("participants").size());
            for (JsonNode p : st.path("participants")) {
                out.printf("  %-24s %-10s sfu=%s gen=%s version=%s%n", p.path("participant_id").asText(),
                        p.path("admission_state").asText("-"), p.path("sfu").asText("-"),
                        p.path("transport_generation").asText("-"), p.path("participant_version").asText("-"));
            }
            out.println("pending enforcement: " + st.path("pending_enforcement"));
            return 0;
        }

        private static JsonNode readJson(String s) {
            try {
                JsonNode n = new ObjectMapper().readTree(s);
                return n != null && n.isObject() ? n : null;
            } catch (java.io.IOException e) {
                return null;
            }
        }
    }
}

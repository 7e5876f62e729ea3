package dev.parley.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.kubectl.cli.ExitCodes;
import dev.parley.kubectl.cli.Failures.CommandFailure;
import dev.parley.kubectl.inspect.MeetingInspection;
import dev.parley.kubectl.inspect.OwnerState;
import dev.parley.kubectl.output.Documents;
import dev.parley.kubectl.output.OutputFormat;
import dev.parley.kubectl.output.OutputOptions;
import dev.parley.kubectl.output.Table;
import dev.parley.operator.keys.RegistryKeys;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code inspect meeting ID}: owner controller and epoch from etcd, then the owner's view of the meeting. */
@Command(name = "inspect", mixinStandardHelpOptions = true, description = "Inspect Parley objects (see: inspect meeting --help).",
        subcommands = InspectCommand.Meeting.class)
public final class InspectCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "meeting", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Owner controller, controller_epoch, SFUs, participants and pending enforcement of a live meeting.",
            footer = {"%nExamples:",
                    "  kubectl -n parley-system port-forward svc/parley-etcd 2379 &",
                    "  kubectl parley inspect meeting 7d1c... --controller-url http://127.0.0.1:8081 --secret-file ./internal-secret",
                    "  kubectl parley inspect meeting 7d1c... -o json | jq .owner.controllerEpoch"})
    static final class Meeting implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "MEETING_ID", description = "Meeting id.")
        String meetingId;

        @Mixin
        OutputOptions output;

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
            String endpoints = etcd != null ? etcd : System.getenv().getOrDefault("PARLEY_ETCD_ENDPOINTS", "http://127.0.0.1:2379");
            KeyValue kv;
            try (Client c = Client.builder().endpoints(endpoints.split(",")).build()) {
                var r = c.getKVClient().get(ByteSequence.from(RegistryKeys.meetingOwner(meetingId), StandardCharsets.UTF_8))
                        .get(5, TimeUnit.SECONDS);
                if (r.getKvs().isEmpty()) {
                    throw new CommandFailure(ExitCodes.NOT_FOUND,
                            "meeting " + meetingId + ": no owner in etcd (not live, or its owner's lease lapsed)");
                }
                kv = r.getKvs().get(0);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new CommandFailure(ExitCodes.UNREACHABLE, "etcd at " + endpoints + " did not answer within 5s");
            }
            String value = kv.getValue().toString(StandardCharsets.UTF_8);
            JsonNode owner = readJson(value);
            String ownerPod = owner != null ? owner.path("pod").asText(owner.path("controller").asText(value)) : value;
            String internal = controllerUrl != null ? controllerUrl
                    : owner != null ? owner.path("internal_url").asText(owner.path("internal_address").asText(null)) : null;
            if (internal != null && internal.isBlank()) {
                internal = null;
            }
            OwnerState.Answer answer = internal == null ? new OwnerState.Answer(null, null)
                    : OwnerState.fetch(internal, meetingId, secret());
            MeetingInspection doc = new MeetingInspection(Documents.API_VERSION, "MeetingInspection", meetingId,
                    new MeetingInspection.Owner(ownerPod, kv.getCreateRevision(), Long.toHexString(kv.getLease()), internal),
                    answer.state(), answer.error());
            OutputFormat format = output.format();
            if (format.structured()) {
                Documents.write(out, format, doc);
            } else {
                print(out, doc, format == OutputFormat.WIDE);
            }
            if (answer.error() != null) {
                spec.commandLine().getErr().println("error: " + answer.error());
                return ExitCodes.UNREACHABLE;
            }
            return ExitCodes.OK;
        }

        private String secret() throws IOException {
            return secretFile != null ? Files.readString(secretFile).trim() : System.getenv("PARLEY_INTERNAL_SECRET");
        }

        private static void print(PrintWriter out, MeetingInspection doc, boolean wide) {
            out.println("meeting:           " + doc.meeting());
            out.println("owner controller:  " + doc.owner().controller());
            out.println("controller_epoch:  " + doc.owner().controllerEpoch() + "   (create revision of the owner key)");
            out.println("owner lease:       " + doc.owner().lease());
            out.println("owner internal:    " + (doc.owner().internalUrl() == null ? "-" : doc.owner().internalUrl()));
            JsonNode st = doc.state();
            if (st == null) {
                out.flush();
                return;
            }
            if (wide) {
                out.println("status:            " + st.path("status").asText("-") + " (version " + st.path("version").asText("-")
                        + ", owned here " + st.path("owned_here").asText("-") + ")");
            }
            out.println("sfus:              " + st.path("sfus"));
            out.println("participants:      " + st.path("participants").size());
            Table parts = new Table(wide ? List.of("PARTICIPANT", "STATE", "SFU", "GEN", "VERSION", "ROLE", "PUBLISH")
                    : List.of("PARTICIPANT", "STATE", "SFU", "GEN", "VERSION"));
            for (JsonNode p : st.path("participants")) {
                List<String> row = new ArrayList<>(List.of(p.path("participant_id").asText("-"), p.path("admission_state").asText("-"),
                        p.path("sfu").asText("-"), p.path("transport_generation").asText("-"), p.path("participant_version").asText("-")));
                if (wide) {
                    row.add(p.path("role").asText("-"));
                    row.add(publish(p.path("publish")));
                }
                parts.add(row);
            }
            if (!st.path("participants").isEmpty()) {
                parts.print(out);
            }
            if (wide) {
                out.println("pending enforcement: " + st.path("pending_enforcement").size());
                Table pending = new Table(List.of("COMMAND", "TYPE", "PARTICIPANT", "COMMITTED_AT", "TRACKED_HERE"));
                for (JsonNode p : st.path("pending_enforcement")) {
                    pending.add(List.of(p.path("command_id").asText("-"), p.path("type").asText("-"),
                            p.path("participant_id").asText("-"), p.path("committed_at").asText("-"), p.path("tracked_here").asText("-")));
                }
                if (!st.path("pending_enforcement").isEmpty()) {
                    pending.print(out);
                }
            } else {
                out.println("pending enforcement: " + st.path("pending_enforcement"));
            }
            out.flush();
        }

        /** "audio,video" from {"audio":true,"video":true,"screen":false}; "-" when nothing may be published. */
        private static String publish(JsonNode pub) {
            List<String> on = new ArrayList<>();
            pub.fieldNames().forEachRemaining(k -> {
                if (pub.path(k).asBoolean(false)) {
                    on.add(k);
                }
            });
            return on.isEmpty() ? "-" : String.join(",", on);
        }

        private static JsonNode readJson(String s) {
            try {
                JsonNode n = new ObjectMapper().readTree(s);
                return n != null && n.isObject() ? n : null;
            } catch (IOException e) {
                return null;
            }
        }
    }
}

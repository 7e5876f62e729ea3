package dev.parley.sfu.api;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.signaling.AnswerBuilderTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #21 on the SFU: a transport created through the real internal API logs its line with meeting_id,
 * participant_id and controller_epoch in the MDC, and a later request's line carries none of them.
 */
class InternalApiMdcTest {
    private static final String SECRET = "mdc-test-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final Logger apiLog = (Logger) LoggerFactory.getLogger(InternalApi.class);
    private final ListAppender<ILoggingEvent> events = new ListAppender<>() {
        @Override
        protected void append(ILoggingEvent e) {
            e.prepareForDeferredProcessing(); // the MDC as it is on the logging thread, now
            super.append(e);
        }
    };
    private SfuServer sfu;
    private TicketSigner signer;

    @BeforeEach
    void start() throws Exception {
        ECKey key = TicketKeys.generate();
        signer = new TicketSigner(key);
        sfu = new SfuServer(new SfuConfig("sfu-mdc", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 1_000_000, true));
        events.setContext(apiLog.getLoggerContext());
        events.start();
        apiLog.addAppender(events);
    }

    @AfterEach
    void stop() {
        apiLog.detachAppender(events);
        events.stop();
        sfu.close();
    }

    private HttpResponse<String> call(String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .header("Authorization", "Bearer " + SECRET)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private List<ILoggingEvent> lines(String startingWith) {
        synchronized (events) {
            return events.list.stream().filter(e -> e.getFormattedMessage().startsWith(startingWith)).toList();
        }
    }

    @Test
    void aTransportsLineCarriesItsMeetingParticipantAndEpochAndNothingStays() throws Exception {
        String t = signer.issue("m-mdc", "p-mdc", 1, "sfu-mdc", "dk", Duration.ofSeconds(20)).token();
        ObjectNode n = JSON.createObjectNode();
        n.put("meeting_id", "m-mdc").put("participant_id", "p-mdc").put("transport_generation", 1).put("controller_epoch", 7)
                .put("kind", "publish").put("connect_ticket", t).put("sdp_offer", AnswerBuilderTest.offer("sendonly", false));
        HttpResponse<String> r = call("POST", "/internal/v1/transports", n.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);

        List<ILoggingEvent> created = lines("transport ");
        assertThat(created).as("the SFU's line about the new transport").hasSize(1);
        Map<String, String> mdc = created.get(0).getMDCPropertyMap();
        assertThat(mdc).containsEntry("meeting_id", "m-mdc").containsEntry("participant_id", "p-mdc")
                .containsEntry("controller_epoch", "7");

        assertThat(call("DELETE", "/internal/v1/meetings/m-mdc/participants/p-mdc?controller_epoch=7", null).statusCode())
                .isEqualTo(204);
        assertThat(lines("participant released")).singleElement()
                .satisfies(e -> assertThat(e.getMDCPropertyMap()).containsEntry("participant_id", "p-mdc"));

        // a request that names no meeting: its line carries nothing of the requests before it
        assertThat(call("POST", "/internal/v1/drain", null).statusCode()).isEqualTo(202);
        assertThat(lines("drain requested")).singleElement()
                .satisfies(e -> assertThat(e.getMDCPropertyMap()).doesNotContainKeys("meeting_id", "participant_id", "controller_epoch"));
    }

    @Test
    void clearRemovesWhatPutSet() {
        ApiMdc.put("m", "p", 3);
        assertThat(MDC.get("meeting_id")).isEqualTo("m");
        ApiMdc.clear();
        Map<String, String> left = MDC.getCopyOfContextMap();
        assertThat(left == null ? Map.of() : left).isEmpty();
    }
}

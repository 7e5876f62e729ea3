package dev.parley.controller.e2ee;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jazzer: an e2ee key message (a signaling socket's {@code key_batch}) of any shape is either refused whole with a
 * {@link Refusal} or parsed into a batch that keeps every rule of {@link KeyBatch}: positive numbers, 1..10,000
 * envelopes, one per recipient, 12-byte IVs and ciphertexts of a wrapped key's size. Regression mode runs the seeds.
 */
class KeyBatchFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @FuzzTest(maxDuration = "10s")
    void parse(FuzzedDataProvider data) {
        JsonNode msg;
        try {
            msg = JSON.readTree(data.consumeRemainingAsBytes());
        } catch (IOException notJson) {
            return; // the socket refuses it before it is a key message
        }
        if (!(msg instanceof ObjectNode o)) {
            return;
        }
        KeyBatch b;
        try {
            b = KeyBatch.parse(o);
        } catch (Refusal refused) {
            assertThat(refused.reason()).isEqualTo("malformed");
            return;
        }
        assertThat(b.controllerEpoch()).isPositive();
        assertThat(b.seq()).isPositive();
        assertThat(b.keyGeneration()).isPositive();
        assertThat(b.envelopes()).isNotEmpty().hasSizeLessThanOrEqualTo(KeyBatch.MAX_ENVELOPES);
        Set<UUID> to = new HashSet<>();
        for (KeyBatch.Envelope e : b.envelopes()) {
            assertThat(to.add(e.to())).isTrue();
            assertThat(Base64Url.decodedLength(e.iv())).isEqualTo(12);
            assertThat(Base64Url.decodedLength(e.ciphertext())).isBetween(KeyBatch.MIN_CIPHERTEXT, KeyBatch.MAX_CIPHERTEXT);
        }
    }
}

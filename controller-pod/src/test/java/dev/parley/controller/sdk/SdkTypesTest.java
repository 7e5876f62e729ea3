package dev.parley.controller.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The SDK's types: the pinned TypeScript (package-lock.json, installed with npm ci under target/) checks
 * every module with tsconfig.json (strict except noImplicitAny) and events.js with everything strict, and
 * writes the .d.ts files to target/sdk-types. Any error fails the test; a planted error proves it can.
 */
class SdkTypesTest {

    @Test
    void tscFindsNoErrorAndWritesTheDeclarations() throws Exception {
        Path out = Path.of("target/sdk-types").toAbsolutePath();
        NodeTool.Run run = NodeTool.tsc(NodeTool.SDK.resolve("tsconfig.json"), out);
        assertThat(run.output()).doesNotContain("error TS");
        assertThat(run.exit()).as(run.output()).isZero();
        String client = Files.readString(out.resolve("parley-client.d.ts"));
        assertThat(client).contains("export class ParleyClient")
                .contains("on<K extends keyof ParleyEventMap>(type: K, handler: (payload: ParleyEventMap[K]) => void): () => void;");
        assertThat(Files.readString(out.resolve("events.d.ts"))).contains("participant_joined: ParticipantEvent;");

        NodeTool.Run events = NodeTool.tsc(NodeTool.SDK.resolve("tsconfig.events.json"), null);
        assertThat(events.exit()).as(events.output()).isZero();
    }

    @Test
    void aPlantedTypeErrorFailsTheCheck() throws Exception {
        Path copy = Path.of("target/sdk-planted").toAbsolutePath();
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(NodeTool.SDK)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".js") || p.getFileName().toString().startsWith("tsconfig")).toList()) {
                Files.copy(f, copy.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // a handler that reads a field its event does not have, and an event name that does not exist
        Files.writeString(copy.resolve("parley-client.js"), """

                /** @param {ParleyClient} c */
                export function planted(c) {
                  c.on('connection_state', (e) => console.log(e.participantId));
                  c.on('participant_joinned', () => {});
                }
                """, StandardOpenOption.APPEND);
        NodeTool.Run run = NodeTool.tsc(copy.resolve("tsconfig.json"), copy.resolve("types"));
        assertThat(run.exit()).isNotZero();
        assertThat(run.output()).contains("error TS2339: Property 'participantId' does not exist")
                .contains("'\"participant_joinned\"' is not assignable");
    }
}

package dev.parley.testsupport.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.testsupport.fs.Directories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The start-up checks of {@code ./parley} and {@code ./mvnw}, run for real with bash.
 *
 * <p>{@code ./parley up} used to say "postgres did not start" when it had (28 of 200 tries): its wait loop asked
 * whether the process was alive by matching {@code /proc/PID/cmdline} against the service's command, and until
 * {@code setsid} has exec'd the service that command line is still the script's own. The test widens that window
 * on purpose: the started process only becomes the service (here: never) after it has written its ready file.
 */
class ParleyScriptStartupTest {

    private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

    private Path home;

    @BeforeEach
    void setUp() throws Exception {
        home = Files.createTempDirectory("parley-startup-");
    }

    @AfterEach
    void tearDown() throws Exception {
        Directories.deleteTree(home);
    }

    @Test
    void aServiceThatHasNotExecdYetIsWaitedForNotCalledDead() throws Exception {
        // start_bg records the pid; the process stays a shell (no "LocalPostgres" in its command line) for 1 s,
        // then writes the ready file that start_postgres waits for.
        String script = "source ./parley && mkdir -p \"$RUN\" \"$LOGS\" && "
                + "start_bg postgres \"$LOGS/postgres.log\" bash -c 'sleep 1; touch \"$0/postgres.ready\"; sleep 2' \"$RUN\" && "
                + "if wait_until 20 postgres test -f \"$RUN/postgres.ready\"; then echo WAITED; else echo GAVE-UP; fi; "
                + "kill \"$(cat \"$RUN/postgres.pid\")\" 2>/dev/null; true";
        Result r = bash(script, List.of("PARLEY_HOME=" + home));
        assertThat(r.output).as(r.output).contains("WAITED").doesNotContain("GAVE-UP");
    }

    @Test
    void aServiceThatDiesIsStillReportedPromptly() throws Exception {
        String script = "source ./parley && mkdir -p \"$RUN\" \"$LOGS\" && "
                + "start_bg postgres \"$LOGS/postgres.log\" bash -c 'exit 3' && "
                + "start=$SECONDS; if wait_until 20 postgres test -f \"$RUN/postgres.ready\"; then echo WAITED; "
                + "else echo \"GAVE-UP after $((SECONDS - start))s\"; fi";
        Result r = bash(script, List.of("PARLEY_HOME=" + home));
        assertThat(r.output).as(r.output).contains("GAVE-UP after");
        int seconds = Integer.parseInt(r.output.replaceAll("(?s).*GAVE-UP after (\\d+)s.*", "$1"));
        assertThat(seconds).as("a dead process is noticed at once, not after the 20 s timeout").isLessThan(5);
    }

    @Test
    void mvnwWithAnOldDefaultJavaSaysWhichJdkItNeeds() throws Exception {
        Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(java17.resolve("bin/java")), "no JDK 17 here");
        Result r = bash("./mvnw -v", List.of("JAVA_HOME=" + java17));
        assertThat(r.output).as(r.output).contains("Parley needs JDK 25").contains("found Java 17");
        // where a JDK 25 is installed (the build machine) it carries on with it instead of failing on jvm.config
        if (Files.isExecutable(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac"))) {
            assertThat(r.exitCode).as(r.output).isZero();
            assertThat(r.output).contains("Apache Maven").doesNotContain("Unrecognized option");
        }
    }

    private Result bash(String script, List<String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(REPO.toFile()).redirectErrorStream(true);
        for (String kv : env) {
            int eq = kv.indexOf('=');
            pb.environment().put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + script);
        }
        return new Result(p.exitValue(), new String(out, UTF_8));
    }

    private record Result(int exitCode, String output) {
    }
}

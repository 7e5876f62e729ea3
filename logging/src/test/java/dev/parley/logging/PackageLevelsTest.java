package dev.parley.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class PackageLevelsTest {
    @Test
    void parsesPairsAndRejectsBadOnes() {
        PackageLevels p = PackageLevels.parse(" dev.parley.sfu.routing=debug, io.netty=WARN,root=info,,x=loud,=warn,a b=info,noequals");
        assertThat(p.levels()).containsEntry("dev.parley.sfu.routing", Level.DEBUG)
                .containsEntry("io.netty", Level.WARN).containsEntry("ROOT", Level.INFO).hasSize(3);
        assertThat(p.rejected()).containsExactly("x=loud", "=warn", "a b=info", "noequals");
        assertThat(PackageLevels.parse(null).levels()).isEmpty();
    }

    @Test
    void logbackWarningsGoToStderrNotStdout() throws Exception {
        String xml = """
                <configuration>
                  <statusListener class="dev.parley.logging.StatusWarningsToStderr"/>
                  <contextListener class="dev.parley.logging.LevelsFromEnvironment"/>
                </configuration>""";
        java.io.PrintStream stdout = System.out;
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        System.setProperty(LevelsFromEnvironment.VARIABLE, "io.netty=loud");
        try {
            System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
            LoggerContext ctx = new LoggerContext();
            JoranConfigurator c = new JoranConfigurator();
            c.setContext(ctx);
            c.doConfigure(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            System.clearProperty(LevelsFromEnvironment.VARIABLE);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("ignoring 'io.netty=loud'").doesNotContain("|-INFO");
    }

    @Test
    void theContextListenerInLogbackXmlWinsOverTheFilesOwnLoggers() throws Exception {
        String xml = """
                <configuration>
                  <logger name="io.netty" level="WARN"/>
                  <contextListener class="dev.parley.logging.LevelsFromEnvironment"/>
                </configuration>""";
        System.setProperty(LevelsFromEnvironment.VARIABLE, "io.netty=debug,dev.parley.sfu=trace,bad");
        try {
            LoggerContext ctx = new LoggerContext();
            JoranConfigurator c = new JoranConfigurator();
            c.setContext(ctx);
            c.doConfigure(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
            assertThat(ctx.getLogger("io.netty").getLevel()).isEqualTo(Level.DEBUG);
            assertThat(ctx.getLogger("dev.parley.sfu.routing").getEffectiveLevel()).isEqualTo(Level.TRACE);
            assertThat(ctx.getStatusManager().getCopyOfStatusList())
                    .anySatisfy(s -> assertThat(s.getMessage()).contains("ignoring 'bad'"));
        } finally {
            System.clearProperty(LevelsFromEnvironment.VARIABLE);
        }
    }
}

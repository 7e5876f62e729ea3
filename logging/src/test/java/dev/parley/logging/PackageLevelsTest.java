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

package dev.parley.turn.config;

import dev.parley.turn.support.TurnFixture;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TurnConfigTest {
    @Test
    void eventLoopsDefaultToHalfTheCpusAtLeastOne() {
        assertThat(TurnConfig.defaultEventLoops(1)).isEqualTo(1);
        assertThat(TurnConfig.defaultEventLoops(2)).isEqualTo(1);
        assertThat(TurnConfig.defaultEventLoops(3)).isEqualTo(1);
        assertThat(TurnConfig.defaultEventLoops(8)).isEqualTo(4);
    }

    @Test
    void ipv6RelaysNeedAConcreteIpv6Address() throws Exception {
        assertThat(TurnFixture.config(Map.of()).ipv6Relays()).isFalse();
        TurnConfig c = TurnFixture.config(Map.of("PARLEY_TURN_RELAY_ADDRESS6", "::1"));
        assertThat(c.ipv6Relays()).isTrue();
        assertThat(c.externalAddress6()).isEqualTo(InetAddress.getByName("::1"));
        assertThat(c.toString()).contains("relayAddress6=0:0:0:0:0:0:0:1");
        assertThat(TurnFixture.config(Map.of("PARLEY_TURN_RELAY_ADDRESS6", "::1", "PARLEY_TURN_EXTERNAL_ADDRESS6", "2001:db8::7"))
                .externalAddress6()).isEqualTo(InetAddress.getByName("2001:db8::7"));
        assertThatThrownBy(() -> TurnFixture.config(Map.of("PARLEY_TURN_RELAY_ADDRESS6", "127.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TurnFixture.config(Map.of("PARLEY_TURN_RELAY_ADDRESS6", "::")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TurnFixture.config(Map.of("PARLEY_TURN_EXTERNAL_ADDRESS6", "::1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void coalescingWindowIsBounded() {
        assertThat(TurnFixture.config(Map.of("PARLEY_TURN_COALESCE_MICROS", "0")).coalesceMicros()).isZero();
        assertThat(TurnFixture.config(Map.of("PARLEY_TURN_COALESCE_MICROS", "300")).coalesceMicros()).isEqualTo(300);
        assertThat(TurnFixture.config(Map.of()).coalesceMicros()).isEqualTo(TurnConfig.DEFAULT_COALESCE_MICROS);
        assertThatThrownBy(() -> TurnFixture.config(Map.of("PARLEY_TURN_COALESCE_MICROS", "-1")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TurnFixture.config(Map.of("PARLEY_TURN_COALESCE_MICROS", "5001")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

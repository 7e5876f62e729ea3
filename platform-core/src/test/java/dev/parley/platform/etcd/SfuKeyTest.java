package dev.parley.platform.etcd;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link RegistryWatcher#allSfus} reads every region's prefix: only SFU entries count, never a TURN entry. */
class SfuKeyTest {
    @Test
    void onlySfuEntriesOfAnyRegionAreSfuKeys() {
        assertThat(EtcdKeys.isSfuKey(EtcdKeys.sfu("eu", "sfu-0"))).isTrue();
        assertThat(EtcdKeys.isSfuKey(EtcdKeys.sfu("far-away", "sfu-9"))).isTrue();
        assertThat(EtcdKeys.isSfuKey(EtcdKeys.turn("eu", "turn-0"))).isFalse();
        assertThat(EtcdKeys.isSfuKey(EtcdKeys.sfuPrefix("eu"))).isFalse();
        assertThat(EtcdKeys.isSfuKey(EtcdKeys.controller("c-0"))).isFalse();
        assertThat(EtcdKeys.isSfuKey(EtcdKeys.regionsPrefix() + "eu/sfu/sfu-0/extra")).isFalse();
    }
}

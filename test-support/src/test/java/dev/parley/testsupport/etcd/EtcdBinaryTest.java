package dev.parley.testsupport.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class EtcdBinaryTest {

    @Test
    void findsTheSystemEtcd() {
        assertThat(Files.isExecutable(EtcdBinary.find())).isTrue();
    }

    @Test
    void missingBinarySaysHowToInstallIt() {
        String before = System.getProperty("parley.etcd.bin");
        System.setProperty("parley.etcd.bin", "/nonexistent/etcd");
        try {
            assertThatThrownBy(EtcdBinary::find)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("apt-get install etcd-server");
        } finally {
            if (before == null) {
                System.clearProperty("parley.etcd.bin");
            } else {
                System.setProperty("parley.etcd.bin", before);
            }
        }
    }
}

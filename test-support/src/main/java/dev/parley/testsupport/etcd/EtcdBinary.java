package dev.parley.testsupport.etcd;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the system etcd binary; tests never download one. */
public final class EtcdBinary {

    /** What to tell a developer whose machine lacks etcd. */
    public static final String INSTALL_HINT = "etcd not found: install it with `apt-get install etcd-server` "
            + "(or point PARLEY_ETCD_BIN / -Dparley.etcd.bin at an etcd 3.4+ binary)";

    private EtcdBinary() {
    }

    /** Path of the etcd binary, or an IllegalStateException carrying {@link #INSTALL_HINT}. */
    public static Path find() {
        String configured = System.getProperty("parley.etcd.bin", System.getenv("PARLEY_ETCD_BIN"));
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured);
            if (Files.isExecutable(p)) {
                return p;
            }
            throw new IllegalStateException("configured etcd binary " + p + " is not executable; " + INSTALL_HINT);
        }
        Path system = Path.of("/usr/bin/etcd");
        if (Files.isExecutable(system)) {
            return system;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(dir, "etcd");
                if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException(INSTALL_HINT);
    }
}

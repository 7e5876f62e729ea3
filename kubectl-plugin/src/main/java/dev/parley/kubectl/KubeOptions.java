package dev.parley.kubectl;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The flags every kubectl plugin is expected to honour. */
public final class KubeOptions {
    @Option(names = {"-n", "--namespace"}, description = "Namespace (default: the context's namespace).")
    String namespace;

    @Option(names = {"-A", "--all-namespaces"}, description = "All namespaces.")
    boolean allNamespaces;

    @Option(names = "--context", description = "Kubeconfig context to use.")
    String context;

    @Option(names = "--kubeconfig", description = "Path to the kubeconfig file.")
    Path kubeconfig;

    KubernetesClient client() {
        Config config;
        if (kubeconfig != null) {
            try {
                config = Config.fromKubeconfig(context, Files.readString(kubeconfig), kubeconfig.toString());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
            }
        } else {
            config = Config.autoConfigure(context);
        }
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    String namespace(KubernetesClient c) {
        if (namespace != null) {
            return namespace;
        }
        String ns = c.getNamespace();
        return ns == null ? "default" : ns;
    }
}

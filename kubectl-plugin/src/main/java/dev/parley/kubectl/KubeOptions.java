package dev.parley.kubectl;

import dev.parley.kubectl.cli.ExitCodes;
import dev.parley.kubectl.cli.Failures.CommandFailure;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
            if (!Files.isReadable(kubeconfig)) {
                throw new CommandFailure(ExitCodes.ERROR, "cannot read kubeconfig " + kubeconfig);
            }
            config = Config.fromKubeconfig(context, kubeconfig.toFile());
        } else {
            config = Config.autoConfigure(context);
        }
        // Patient like kubectl: a busy API server is slow, not down.
        config.setRequestTimeout(60_000);
        config.setConnectionTimeout(20_000);
        // ...but a refused connection is reported after a few quick retries, not after the client's default ~100 s.
        config.setRequestRetryBackoffLimit(3);
        // HTTP/1.1: a plain-http endpoint (kubectl proxy, local test servers) otherwise gets an h2c upgrade attempt
        // on every request, which some servers leave hanging.
        config.setHttp2Disable(true);
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

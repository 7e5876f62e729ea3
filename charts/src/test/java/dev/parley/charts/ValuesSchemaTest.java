package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** values.schema.json turns bad values away before anything renders, naming the value and what is wrong. */
class ValuesSchemaTest {
    static final String SCHEMA_ERROR = "values don't meet the specifications of the schema";

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(Map.of("controller.ports.http", "abc"), "controller.ports.http: Invalid type. Expected: integer, given: string"),
                Arguments.of(Map.of("etcd.ports.client", "70000"), "etcd.ports.client: Must be less than or equal to 65535"),
                Arguments.of(Map.of("images.operator.pullPolicy", "Sometimes"), "images.operator.pullPolicy: images.operator.pullPolicy must be one of the following"),
                // --set nodeSelector.x=true gives a boolean; Kubernetes wants strings
                Arguments.of(Map.of("media.nodeSelector.disk", "true"), "media.nodeSelector.disk: Invalid type. Expected: string, given: boolean"),
                Arguments.of(Map.of("media.affinity.x", "y"), "media: Additional property affinity is not allowed"),
                Arguments.of(Map.of("etcdd.enabled", "false"), "Additional property etcdd is not allowed"),
                Arguments.of(Map.of("region", "EU_1"), "region: Does not match pattern"),
                Arguments.of(Map.of("etcd.enabled", "false"), "etcd.external.endpoints: String length must be greater than or equal to 1"),
                Arguments.of(Map.of("postgresql.enabled", "false"), "postgresql.external.jdbcUrl: String length must be greater than or equal to 1"),
                Arguments.of(Map.of("ingress.enabled", "true"), "ingress.host: String length must be greater than or equal to 1"),
                Arguments.of(Map.of("operator.leaderElection", "false"), "operator.replicas: Must be less than or equal to 1"),
                Arguments.of(Map.of("exampleRegion.sfuPool.minReplicas", "1"), "exampleRegion.sfuPool.minReplicas: Must be greater than or equal to 2"),
                Arguments.of(Map.of("etcd.persistence.size", "lots"), "etcd.persistence.size: Does not match pattern"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void templateRefusesBadValues(Map<String, String> set, String expected) {
        assertThatThrownBy(() -> HelmChart.render(set))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(SCHEMA_ERROR)
                .hasMessageContaining(expected);
    }
}

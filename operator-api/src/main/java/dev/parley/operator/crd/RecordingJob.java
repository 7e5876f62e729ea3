package dev.parley.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** One recording: the operator runs a recorder pod per generation and retries with generation + 1. */
@Group(ParleyApi.GROUP)
@Version(ParleyApi.VERSION)
@Plural("recordingjobs")
@ShortNames({"rj", "rec"})
@Categories("parley")
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class RecordingJob extends CustomResource<RecordingJobSpec, RecordingJobStatus> implements Namespaced {
    private static final long serialVersionUID = 1L;
}

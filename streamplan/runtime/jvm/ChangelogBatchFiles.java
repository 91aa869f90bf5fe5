package streamplan.sink;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The `values` connector's sink on the JVM: a foreachBatch function that records each
 * micro-batch's rows exactly once, as one file named by the batch id, written atomically; a
 * replayed batch id finds its file and writes nothing, so restarts never duplicate output.
 *
 * <p>The rows are pickled as DataFrame.collect() hands them to Python (the picklers of
 * Dataset.javaToPython, framed by length as PySpark's BatchedSerializer reads them), so the
 * Python side reads back exactly the values collect() gives. Running on the JVM spares each
 * micro-batch a call back into the Python driver and a result server.
 */
public final class ChangelogBatchFiles implements VoidFunction2<Dataset<Row>, Long> {
  private final String directory;
  private final List<long[]> calls = new ArrayList<>();   // {batch id, System.nanoTime()}
  private final long made = System.nanoTime();

  public ChangelogBatchFiles(String directory) {
    this.directory = directory;
  }

  public static Path file(String directory, long batchId) {
    return Paths.get(directory, String.format("batch-%06d.pickle", batchId));
  }

  @Override
  public void call(Dataset<Row> batch, Long batchId) throws IOException {
    Path target = file(directory, batchId);
    // Always run the batch: its stateful operators commit their state only when every
    // partition is consumed (Spark fails the batch otherwise), also on a replay.
    // Spark's own Dataset under the API class; javaToPython is what collectToPython pickles.
    org.apache.spark.sql.classic.Dataset<Row> rows = (org.apache.spark.sql.classic.Dataset<Row>) batch;
    List<byte[]> chunks = rows.javaToPython().collect();
    synchronized (calls) {
      calls.add(new long[] {batchId, System.nanoTime()});
    }
    if (Files.exists(target)) {
      return;                                              // replayed batch: already recorded
    }
    Files.createDirectories(target.getParent());
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    try (DataOutputStream out = new DataOutputStream(
        new BufferedOutputStream(Files.newOutputStream(temp)))) {
      for (byte[] chunk : chunks) {
        out.writeInt(chunk.length);
        out.write(chunk);
      }
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The batch ids this writer was called with, in order (replays included). */
  public long[] calledBatchIds() {
    synchronized (calls) {
      return calls.stream().mapToLong(call -> call[0]).toArray();
    }
  }

  /** Seconds from this writer's creation to each call, in order (for benchmarks). */
  public double[] callSeconds() {
    synchronized (calls) {
      return calls.stream().mapToDouble(call -> (call[1] - made) / 1e9).toArray();
    }
  }
}

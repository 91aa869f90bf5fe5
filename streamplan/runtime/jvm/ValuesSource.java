package streamplan.values;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.ManualClock;

/**
 * The `values` connector's source on the JVM: a feed file of Arrow record batches, one per
 * step, read one step per micro-batch. The offset is the step index, written as the Python
 * source before it wrote it ({"step": n}), so checkpoints of either restore through this one.
 */
public final class ValuesSource implements TableProvider {
  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    throw new IllegalArgumentException("the values source needs an explicit schema");
  }

  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return new FeedTable(schema);
  }

  static final class FeedTable implements Table, SupportsRead {
    private final StructType schema;

    FeedTable(StructType schema) {
      this.schema = schema;
    }

    @Override
    public String name() {
      return "values";
    }

    // Deprecated for columns() since Spark 3.4, whose default derives the columns from this;
    // implementing columns() instead would leave schema() throwing for callers that still use it.
    @SuppressWarnings("deprecation")
    @Override
    public StructType schema() {
      return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
      return EnumSet.of(TableCapability.MICRO_BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      String feed = options.get("feed");
      if (feed == null) {
        throw new IllegalArgumentException("the values source needs the option 'feed'");
      }
      return () -> new Scan() {
        @Override
        public StructType readSchema() {
          return schema;
        }

        @Override
        public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
          return new FeedStream(Path.of(feed));
        }
      };
    }
  }

  static final class StepOffset extends Offset {
    private static final Pattern JSON = Pattern.compile("\\{\\s*\"step\"\\s*:\\s*(\\d+)\\s*}");
    final int step;

    StepOffset(int step) {
      this.step = step;
    }

    static StepOffset parse(String json) {
      Matcher match = JSON.matcher(json.trim());
      if (!match.matches()) {
        throw new IllegalArgumentException("not an offset of the values source: " + json);
      }
      return new StepOffset(Integer.parseInt(match.group(1)));
    }

    @Override
    public String json() {
      return "{\"step\": " + step + "}";  // as Python's json.dumps wrote it
    }
  }

  record StepsPartition(byte[] arrowStream) implements InputPartition {}

  /** A query's manual clock and the processing time of each step of a feed it reads. */
  private static final class StepClock {
    final ManualClock clock;
    final long[] times;

    StepClock(ManualClock clock, long[] times) {
      this.clock = clock;
      this.times = times;
    }
  }

  private static final Map<String, StepClock> STEP_CLOCKS = new ConcurrentHashMap<>();

  /**
   * Processing time per step: the micro-batch that reads step n of `feed` is stamped
   * `times[n]` (comma-separated epoch milliseconds). Spark takes a batch's timestamp from the
   * trigger clock right after it asks the sources for their offsets, so the stream sets the
   * query's manual clock there. Bound before the query starts; `unbindClock` after it stops.
   */
  public static void bindClock(String feed, ManualClock clock, String times) {
    String[] parts = times.isEmpty() ? new String[0] : times.split(",");
    long[] parsed = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      parsed[i] = Long.parseLong(parts[i]);
    }
    STEP_CLOCKS.put(feed, new StepClock(clock, parsed));
  }

  public static void unbindClock(String feed) {
    STEP_CLOCKS.remove(feed);
  }

  /** Plans micro-batches in the driver; the feed is read once, when first needed. */
  static final class FeedStream implements MicroBatchStream, SupportsAdmissionControl {
    private final Path feed;
    private BufferAllocator allocator;
    private ArrowFileReader reader;

    FeedStream(Path feed) {
      this.feed = feed;
    }

    private ArrowFileReader reader() throws IOException {
      if (reader == null) {
        allocator = new RootAllocator();
        reader = new ArrowFileReader(Files.newByteChannel(feed), allocator);
        reader.getVectorSchemaRoot();
      }
      return reader;
    }

    private int steps() {
      try {
        return reader().getRecordBlocks().size();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the values feed " + feed, e);
      }
    }

    @Override
    public Offset initialOffset() {
      return new StepOffset(0);
    }

    @Override
    public Offset latestOffset() {
      throw new UnsupportedOperationException("latestOffset(start, limit) plans this source");
    }

    @Override
    public Offset latestOffset(Offset start, ReadLimit limit) {
      // Never behind the start: a checkpoint may have read more steps than this feed holds
      // (a run to end of input before executor.phased_steps left out steps no plan needs).
      int from = ((StepOffset) start).step;
      int next = Math.max(from, Math.min(from + 1, steps()));
      StepClock stepClock = STEP_CLOCKS.get(feed.toString());
      if (next > from && stepClock != null && from < stepClock.times.length) {
        stepClock.clock.setTime(stepClock.times[from]);
      }
      return new StepOffset(next);
    }

    @Override
    public ReadLimit getDefaultReadLimit() {
      return ReadLimit.allAvailable();
    }

    @Override
    public InputPartition[] planInputPartitions(Offset start, Offset end) {
      int from = ((StepOffset) start).step;
      int to = ((StepOffset) end).step;
      if (from >= to) {
        return new InputPartition[0];
      }
      try {
        ArrowFileReader file = reader();
        List<ArrowBlock> blocks = file.getRecordBlocks();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        VectorSchemaRoot root = file.getVectorSchemaRoot();
        try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
          writer.start();
          for (int step = from; step < to; step++) {
            file.loadRecordBatch(blocks.get(step));
            writer.writeBatch();
          }
          writer.end();
        }
        return new InputPartition[] {new StepsPartition(bytes.toByteArray())};
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the values feed " + feed, e);
      }
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return partition -> new StepsReader(((StepsPartition) partition).arrowStream());
    }

    @Override
    public Offset deserializeOffset(String json) {
      return StepOffset.parse(json);
    }

    @Override
    public void commit(Offset end) {}

    @Override
    public void stop() {
      try {
        if (reader != null) {
          reader.close();
          allocator.close();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Reads a partition's steps; its rows are views into the current Arrow batch. */
  static final class StepsReader implements PartitionReader<InternalRow> {
    private final BufferAllocator allocator = new RootAllocator();
    private final ArrowStreamReader stream;
    private Iterator<InternalRow> rows = Collections.emptyIterator();
    private InternalRow current;

    StepsReader(byte[] arrowStream) {
      stream = new ArrowStreamReader(new ByteArrayInputStream(arrowStream), allocator);
    }

    @Override
    public boolean next() throws IOException {
      while (!rows.hasNext()) {
        if (!stream.loadNextBatch()) {
          return false;
        }
        VectorSchemaRoot root = stream.getVectorSchemaRoot();
        ColumnVector[] columns = root.getFieldVectors().stream()
            .map(ArrowColumnVector::new).toArray(ColumnVector[]::new);
        rows = new ColumnarBatch(columns, root.getRowCount()).rowIterator();
      }
      current = rows.next();
      return true;
    }

    @Override
    public InternalRow get() {
      return current;
    }

    @Override
    public void close() throws IOException {
      stream.close();
      allocator.close();
    }
  }
}

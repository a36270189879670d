// scripts/YcsbReference.java — drives the real YCSB's CoreWorkload and generators and writes the
// reference tables FlashPQ's ycsb generator is tested against (tests/data/ycsb/, read by
// tests/traces/test_ycsb.cpp). Run by scripts/ycsb-reference.sh, a maintainer's step that
// fetches YCSB from Maven Central; never part of the build or the tests.
//
// What it does (docs/guide/traces.md, "YCSB: the reference"):
//   * each run is CoreWorkload.init() with the properties of one of YCSB 0.17.0's workload files
//     (workloads/workload[a-f] at the release tag, copied below) and the run's overrides, then
//     operationcount calls of doTransaction() on a DB that records every call: the operation
//     chosen (through the doTransaction* methods, overridden only to note which one runs), the
//     key of each read, update and scan start (its name, CoreWorkload.buildKeyName, mapped back
//     to the key number that made it), the scan lengths and the inserted keys;
//   * the run with a zipfian constant other than 0.99 replaces CoreWorkload's key chooser by
//     ScrambledZipfianGenerator(insertstart, insertstart + insertcount + expectednewkeys, theta),
//     what init() builds with the two-argument constructor, whose theta is fixed at 0.99: YCSB
//     0.17.0's CoreWorkload reads no zipfian-constant property;
//   * the draw tables take a generator's uniform variate u and its value together: u is read
//     from the thread's ThreadLocalRandom ahead of the generator, whose seed is then put back, so
//     the generator draws the same u (checked: the seed after the generator's call equals the
//     seed after reading u, so it drew exactly one double, and that one).
// Each table's header names YCSB's version, the command and the parameters.
//
// This is FlashPQ's own code (a DB subclass, a CoreWorkload subclass, counting); it contains no
// YCSB source.

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import java.util.concurrent.ThreadLocalRandom;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.Utils;
import site.ycsb.generator.CounterGenerator;
import site.ycsb.generator.ScrambledZipfianGenerator;
import site.ycsb.generator.SkewedLatestGenerator;
import site.ycsb.generator.ZipfianGenerator;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

public final class YcsbReference {
  static final String VERSION = "YCSB 0.17.0 (site.ycsb:core:0.17.0 from Maven Central)";
  static String command;
  static Path out;

  // ---- workloads/workload[a-f] of YCSB 0.17.0 (git tag 0.17.0 of brianfrankcooper/YCSB), the
  // properties that are not CoreWorkload's defaults or the record/operation counts.
  static Properties workload(char w) {
    Properties p = new Properties();
    p.setProperty("readallfields", "true");
    switch (w) {
      case 'a':
        put(p, "0.5", "0.5", "0", "0", null, "zipfian");
        break;
      case 'b':
        put(p, "0.95", "0.05", "0", "0", null, "zipfian");
        break;
      case 'c':
        put(p, "1", "0", "0", "0", null, "zipfian");
        break;
      case 'd':
        put(p, "0.95", "0", "0", "0.05", null, "latest");
        break;
      case 'e':
        put(p, "0", "0", "0.95", "0.05", null, "zipfian");
        p.setProperty("maxscanlength", "100");
        p.setProperty("scanlengthdistribution", "uniform");
        break;
      case 'f':
        put(p, "0.5", "0", "0", "0", "0.5", "zipfian");
        break;
      default:
        throw new IllegalArgumentException("workload " + w);
    }
    return p;
  }

  static void put(Properties p, String read, String update, String scan, String insert,
      String rmw, String distribution) {
    p.setProperty("readproportion", read);
    p.setProperty("updateproportion", update);
    p.setProperty("scanproportion", scan);
    p.setProperty("insertproportion", insert);
    if (rmw != null) p.setProperty("readmodifywriteproportion", rmw);
    p.setProperty("requestdistribution", distribution);
  }

  // ---- A CoreWorkload that says which transaction runs, names keys, and can take another key
  // chooser.
  static final class Probe extends CoreWorkload {
    String op = "";

    String name(long keynum) {
      return buildKeyName(keynum);
    }

    void chooser(site.ycsb.generator.NumberGenerator g) {
      keychooser = g;
    }

    @Override
    public void doTransactionRead(DB db) {
      op = "read";
      super.doTransactionRead(db);
    }

    @Override
    public void doTransactionUpdate(DB db) {
      op = "update";
      super.doTransactionUpdate(db);
    }

    @Override
    public void doTransactionInsert(DB db) {
      op = "insert";
      super.doTransactionInsert(db);
    }

    @Override
    public void doTransactionScan(DB db) {
      op = "scan";
      super.doTransactionScan(db);
    }

    @Override
    public void doTransactionReadModifyWrite(DB db) {
      op = "readmodifywrite";
      super.doTransactionReadModifyWrite(db);
    }
  }

  // ---- What one run saw.
  static final class Run {
    final Probe probe;
    final long records;
    final Map<String, Long> number = new HashMap<>();  // key name → key number
    long inserted;  // key numbers inserted so far (records, records + 1, ...)
    final TreeMap<String, Long> ops = new TreeMap<>();
    final TreeMap<Long, Long> keys = new TreeMap<>();  // key number of reads/updates/scan starts
    // ⌊10^4 (newest − key) / newest⌋ per chosen key: the distance below the newest key as a
    // share of the keys there are. A run's distances scale with its key count at each read, and
    // so with when its inserts came; this share does not.
    final TreeMap<Long, Long> relativeDistance = new TreeMap<>();
    final TreeMap<Long, Long> scanLength = new TreeMap<>();
    final List<String[]> inserts = new ArrayList<>();  // name, number, first ones
    String parameters = "";

    Run(Probe probe, long records, long maxKeys) {
      this.probe = probe;
      this.records = records;
      for (long k = 0; k < maxKeys; ++k) number.put(probe.name(k), k);
    }

    long numberOf(String name) {
      Long k = number.get(name);
      if (k == null) throw new IllegalStateException("a key no key number names: " + name);
      return k;
    }

    void chosen(String name) {
      long k = numberOf(name);
      keys.merge(k, 1L, Long::sum);
      long newest = records - 1 + inserted;
      relativeDistance.merge((newest - k) * 10_000 / newest, 1L, Long::sum);
    }
  }

  static final class Recorder extends DB {
    final Run run;

    Recorder(Run run) {
      this.run = run;
    }

    @Override
    public Status read(String table, String key, Set<String> fields,
        Map<String, ByteIterator> result) {
      run.chosen(key);
      return Status.OK;
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
        Vector<HashMap<String, ByteIterator>> result) {
      run.chosen(startkey);
      run.scanLength.merge((long) recordcount, 1L, Long::sum);
      return Status.OK;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
      // A read-modify-write's update repeats its read's key: counted once, with the read.
      if (!run.probe.op.equals("readmodifywrite")) run.chosen(key);
      return Status.OK;
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
      long k = run.numberOf(key);
      if (run.inserts.size() < 200) run.inserts.add(new String[] {key, Long.toString(k)});
      ++run.inserted;
      return Status.OK;
    }

    @Override
    public Status delete(String table, String key) {
      throw new IllegalStateException("CoreWorkload deletes nothing");
    }
  }

  // ---- Tables.
  static PrintWriter table(String file, String parameters, String what, String columns)
      throws IOException {
    PrintWriter w = new PrintWriter(Files.newBufferedWriter(out.resolve(file)));
    w.println("# " + VERSION + ", driven by scripts/YcsbReference.java");
    w.println("# command: " + command);
    w.println("# parameters: " + parameters);
    w.println("# " + what);
    w.println(columns);
    return w;
  }

  static void counts(String file, String parameters, String what, String column,
      TreeMap<Long, Long> counts) throws IOException {
    try (PrintWriter w = table(file, parameters, what, column + ",count")) {
      for (Map.Entry<Long, Long> e : counts.entrySet()) w.println(e.getKey() + "," + e.getValue());
    }
  }

  static final List<String> opsRows = new ArrayList<>();

  /** One CoreWorkload run: `name`, workload letter, overrides, counts, an optional theta. */
  static Run run(String name, char letter, long records, long operations, String[] overrides,
      Double theta) throws Exception {
    Properties p = workload(letter);
    p.setProperty("recordcount", Long.toString(records));
    p.setProperty("operationcount", Long.toString(operations));
    for (int i = 0; i < overrides.length; i += 2) p.setProperty(overrides[i], overrides[i + 1]);
    Probe probe = new Probe();
    probe.init(p);
    StringBuilder params = new StringBuilder("workload=" + letter
        + " (workloads/workload" + letter + " of YCSB 0.17.0)");
    for (String k : new TreeMap<>(p).keySet().stream().map(Object::toString).toList()) {
      params.append(' ').append(k).append('=').append(p.getProperty(k));
    }
    if (theta != null) {
      // CoreWorkload.init's zipfian chooser with the constant written (insertstart 0).
      double insert = Double.parseDouble(p.getProperty("insertproportion", "0.0"));
      int expectednewkeys = (int) (((double) operations) * insert * 2.0);
      probe.chooser(new ScrambledZipfianGenerator(0, records + expectednewkeys, theta));
      params.append(" keychooser=ScrambledZipfianGenerator(0, recordcount + expectednewkeys, ")
          .append(theta).append(")");
    }
    // Names of every key number there can be: the records and one per insert.
    boolean inserts = Double.parseDouble(p.getProperty("insertproportion", "0.0")) > 0;
    Run run = new Run(probe, records, records + (inserts ? operations : 0) + 1);
    Recorder db = new Recorder(run);
    for (long i = 0; i < operations; ++i) {
      if (!probe.doTransaction(db, null)) throw new IllegalStateException("doTransaction failed");
      run.ops.merge(probe.op, 1L, Long::sum);
    }
    String ps = params.toString();
    run.parameters = ps;
    opsRows.add(name + "," + run.ops.getOrDefault("read", 0L) + ","
        + run.ops.getOrDefault("update", 0L) + "," + run.ops.getOrDefault("insert", 0L) + ","
        + run.ops.getOrDefault("scan", 0L) + "," + run.ops.getOrDefault("readmodifywrite", 0L)
        + "," + ps);
    System.err.println(name + ": " + run.ops);
    return run;
  }

  // ---- Draw tables: a generator's variate and its value.
  static sun.misc.Unsafe unsafe;
  static long seedOffset;

  static void initPeek() throws Exception {
    Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    f.setAccessible(true);
    unsafe = (sun.misc.Unsafe) f.get(null);
    seedOffset = unsafe.objectFieldOffset(Thread.class.getDeclaredField("threadLocalRandomSeed"));
  }

  /** The next ThreadLocalRandom.nextDouble() of this thread, and the seed after it, unspent. */
  static double[] peek() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    Thread t = Thread.currentThread();
    long before = unsafe.getLong(t, seedOffset);
    double u = r.nextDouble();
    long after = unsafe.getLong(t, seedOffset);
    unsafe.putLong(t, seedOffset, before);
    return new double[] {u, Double.longBitsToDouble(after)};
  }

  static void spentExactly(double[] peeked) {
    long now = unsafe.getLong(Thread.currentThread(), seedOffset);
    if (now != Double.doubleToRawLongBits(peeked[1])) {
      throw new IllegalStateException("the generator drew other than the one variate peeked");
    }
  }

  public static void main(String[] args) throws Exception {
    out = Paths.get(args[0]);
    command = args.length > 1 ? args[1] : "scripts/ycsb-reference.sh";
    Files.createDirectories(out);
    Measurements.setProperties(new Properties());
    initPeek();

    // Key popularity of the zipfian workloads and of each request distribution: 1,000 records,
    // 2 M operations (the popularity is stationary: no inserts).
    final long records = 1000;
    final long big = 2_000_000;
    final String keysWhat =
        "key number (CoreWorkload.buildKeyName mapped back) of every read, update, "
        + "read-modify-write and scan start, and how many operations chose it";
    String[][] stationary = {
        {"a", "a"}, {"b", "b"}, {"c", "c"}, {"f", "f"},
        {"c-uniform", "c", "requestdistribution", "uniform"},
        {"c-hotspot", "c", "requestdistribution", "hotspot"},
        {"c-latest", "c", "requestdistribution", "latest"}};
    for (String[] s : stationary) {
      String[] overrides = java.util.Arrays.copyOfRange(s, 2, s.length);
      Run r = run(s[0], s[1].charAt(0), records, big, overrides, null);
      counts("keys-" + s[0] + ".csv", r.parameters,
          keysWhat, "key", r.keys);
    }
    // A zipfian constant other than YCSB's 0.99.
    {
      Run r = run("c-theta0.8", 'c', records, big, new String[0], 0.8);
      counts("keys-c-theta0.8.csv", r.parameters, keysWhat,
          "key", r.keys);
    }
    // Workload d: the latest reads' distance below the newest key, as inserts grow the keys.
    {
      Run r = run("d", 'd', records, 200_000, new String[0], null);
      String ps = r.parameters;
      counts("latest-relative-distance-d.csv", ps,
          "per read: floor(10000 (newest - key) / newest), newest the newest key number, key the "
          + "key number read; and its count",
          "relative_distance", r.relativeDistance);
      try (PrintWriter w = table("inserts-d.csv", ps,
          "the first 200 inserted keys in order: CoreWorkload's key name and the key number "
          + "it is the name of",
          "index,key_name,key_number")) {
        for (int i = 0; i < r.inserts.size(); ++i) {
          w.println(i + "," + r.inserts.get(i)[0] + "," + r.inserts.get(i)[1]);
        }
      }
    }
    // Workload e: scan starts (the scrambled zipfian over the keys expected), scan lengths.
    {
      Run r = run("e", 'e', records, 300_000, new String[0], null);
      String ps = r.parameters;
      counts("keys-e.csv", ps, keysWhat, "key", r.keys);
      counts("scan-length-e.csv", ps, "scan lengths asked of DB.scan, and their count", "length",
          r.scanLength);
      Run z = run("e-zipfian", 'e', records, 300_000,
          new String[] {"scanlengthdistribution", "zipfian"}, null);
      counts("scan-length-e-zipfian.csv", z.parameters,
          "scan lengths asked of DB.scan, and their count", "length", z.scanLength);
    }
    try (PrintWriter w = table("ops.csv", "per run, in its row",
        "operations chosen by doTransaction per run",
        "run,read,update,insert,scan,readmodifywrite,parameters")) {
      for (String row : opsRows) w.println(row);
    }

    // Draws: ScrambledZipfianGenerator(0, 1000) as CoreWorkload builds it for 1,000 records and
    // no inserts; u then the scrambled value (before CoreWorkload's retry above the last key).
    try (PrintWriter w = table("draws-scrambled-zipfian.csv",
        "ScrambledZipfianGenerator(0, 1000) (theta 0.99: ZipfianGenerator(0, ITEM_COUNT, 0.99, "
        + "ZETAN))",
        "2,000 draws: the uniform variate u (ThreadLocalRandom.nextDouble) and nextValue()",
        "u,value")) {
      ScrambledZipfianGenerator g = new ScrambledZipfianGenerator(0, 1000);
      for (int i = 0; i < 2_000; ++i) {
        double[] u = peek();
        long v = g.nextValue();
        spentExactly(u);
        w.println(Double.toString(u[0]) + "," + v);
      }
    }
    // ZipfianGenerator(1, 100): the zipfian scan lengths (CoreWorkload, scanlengthdistribution
    // zipfian, minscanlength 1, maxscanlength 100).
    try (PrintWriter w = table("draws-zipfian-1-100.csv", "ZipfianGenerator(1, 100) (theta 0.99)",
        "2,000 draws: the uniform variate u (ThreadLocalRandom.nextDouble) and nextValue()",
        "u,value")) {
      ZipfianGenerator g = new ZipfianGenerator(1, 100);
      for (int i = 0; i < 2_000; ++i) {
        double[] u = peek();
        long v = g.nextValue();
        spentExactly(u);
        w.println(Double.toString(u[0]) + "," + v);
      }
    }
    // SkewedLatestGenerator over a counter started at 1,000 (CoreWorkload's, for 1,000
    // records), the counter advanced by one before every 20th draw (inserts).
    try (PrintWriter w = table("draws-latest.csv",
        "SkewedLatestGenerator(CounterGenerator(1000)); the counter advanced before every 20th "
        + "draw",
        "2,000 draws: the uniform variate u, the counter's lastValue() (the newest key) and "
        + "nextValue()",
        "u,newest,value")) {
      CounterGenerator basis = new CounterGenerator(1000);
      SkewedLatestGenerator g = new SkewedLatestGenerator(basis);
      for (int i = 0; i < 2_000; ++i) {
        if (i % 20 == 19) basis.nextValue();
        double[] u = peek();
        long newest = basis.lastValue();
        long v = g.nextValue();
        spentExactly(u);
        w.println(Double.toString(u[0]) + "," + newest + "," + v);
      }
    }
    // Utils.fnvhash64 and CoreWorkload's key names.
    try (PrintWriter w = table("fnvhash64.csv", "Utils.fnvhash64(value); insertorder=hashed",
        "values, their Utils.fnvhash64 and CoreWorkload.buildKeyName", "value,fnvhash64,key_name")) {
      Probe probe = new Probe();
      Properties p = workload('a');
      p.setProperty("recordcount", "1000");
      p.setProperty("operationcount", "1");
      probe.init(p);
      long[] values = {0, 1, 2, 3, 255, 256, 1000, 12345, 999_999, 1L << 31, 1L << 40,
          10_000_000_000L, 10_000_000_000_000_000L, Long.MAX_VALUE};
      for (long v : values) w.println(v + "," + Utils.fnvhash64(v) + "," + probe.name(v));
    }
  }
}

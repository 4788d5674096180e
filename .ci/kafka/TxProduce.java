// A transactional producer for the integration tests (kafka-ci.sh txproduce): it sends the
// lines of standard input as record values to partition 0 of a topic in transactions of N
// records, so that the partition holds transaction markers (control records) between and after
// the data, as exactly-once producers (Kafka Streams, Flink) leave.
//
// usage: TxProduce BOOTSTRAP TOPIC N [ABORT_EVERY [PRODUCERS]]
//   ABORT_EVERY  every ABORT_EVERY-th transaction of each producer is aborted after its records
//                were flushed to the broker (0, the default: none), as a producer that fails
//                over leaves them
//   PRODUCERS    transactional producers (default 1); line i goes to producer i % PRODUCERS, so
//                the records of their transactions interleave in the partition
// Each line of a committed transaction is printed to standard output after "committed\t" (in no
// particular order; any other output line is a log line).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

public class TxProduce {
  static int abortEvery;

  public static void main(String[] args) throws Exception {
    String topic = args[1];
    int perTxn = Integer.parseInt(args[2]);
    abortEvery = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    int n = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    List<KafkaProducer<String, String>> producers = new ArrayList<>();
    long id = System.nanoTime();
    for (int k = 0; k < n; k++) {
      Properties p = new Properties();
      p.put("bootstrap.servers", args[0]);
      p.put("transactional.id", "evalstream-test-" + id + "-" + k);
      p.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
      p.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
      KafkaProducer<String, String> producer = new KafkaProducer<>(p);
      producer.initTransactions();
      producers.add(producer);
    }
    int[] sent = new int[n];
    int[] txns = new int[n];
    List<List<String>> pending = new ArrayList<>();
    for (int k = 0; k < n; k++) pending.add(new ArrayList<>());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int i = 0;
    for (String line; (line = in.readLine()) != null; i++) {
      int k = i % n;
      KafkaProducer<String, String> producer = producers.get(k);
      if (sent[k] % perTxn == 0) producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, null, line));
      // Flush every record, so that the producers' records interleave in the partition.
      producer.flush();
      pending.get(k).add(line);
      if (++sent[k] % perTxn == 0) finish(producer, txns, k, pending.get(k));
    }
    for (int k = 0; k < n; k++) {
      if (sent[k] % perTxn != 0) finish(producers.get(k), txns, k, pending.get(k));
      producers.get(k).close();
    }
    System.out.flush();
  }

  static void finish(KafkaProducer<String, String> producer, int[] txns, int k, List<String> lines) {
    boolean abort = abortEvery > 0 && txns[k] % abortEvery == abortEvery - 1;
    txns[k]++;
    if (abort) {
      producer.abortTransaction();
    } else {
      producer.commitTransaction();
      for (String l : lines) System.out.println("committed\t" + l);
    }
    lines.clear();
  }
}

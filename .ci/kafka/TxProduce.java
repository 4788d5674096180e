// A transactional producer for the integration tests (kafka-ci.sh txproduce): it sends the
// lines of standard input as record values to partition 0 of a topic, committing a
// transaction after every N records, so that the partition holds transaction markers (control
// records) between and after the data, as exactly-once producers (Kafka Streams, Flink) leave.
// usage: TxProduce BOOTSTRAP TOPIC N
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

public class TxProduce {
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("transactional.id", "evalstream-test-" + System.nanoTime());
    p.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    p.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    int perTxn = Integer.parseInt(args[2]);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      int n = 0;
      for (String line; (line = in.readLine()) != null; ) {
        if (n % perTxn == 0) producer.beginTransaction();
        producer.send(new ProducerRecord<>(args[1], 0, null, line));
        if (++n % perTxn == 0) producer.commitTransaction();
      }
      if (n % perTxn != 0) producer.commitTransaction();
    }
  }
}

import { MemoryQueue } from '../../adapters/queue/memory'
import { queueContract } from './queue'

queueContract('in-process queue', async () => new MemoryQueue()).run()

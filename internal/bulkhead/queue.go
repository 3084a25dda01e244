package bulkhead

// taskQueue is a FIFO ring of tasks that grows on demand up to its limit. It is not safe
// for concurrent use: the pool guards it with its mutex.
type taskQueue struct {
	buf   []Task
	head  int // index of the oldest task
	count int
	limit int
}

func newTaskQueue(limit int) taskQueue { return taskQueue{limit: limit} }

// len returns the number of queued tasks.
func (q *taskQueue) len() int { return q.count }

// push appends t and reports false when the queue already holds limit tasks.
func (q *taskQueue) push(t Task) bool {
	if q.count >= q.limit {
		return false
	}
	if q.count == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.count)%len(q.buf)] = t
	q.count++
	return true
}

// pop removes and returns the oldest task, or nil when the queue is empty.
func (q *taskQueue) pop() Task {
	if q.count == 0 {
		return nil
	}
	t := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.count--
	return t
}

// grow doubles the buffer (at least 8, at most limit) and unwraps the ring into it.
func (q *taskQueue) grow() {
	n := min(max(2*len(q.buf), 8), q.limit)
	buf := make([]Task, n)
	for i := range q.count {
		buf[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = buf, 0
}
